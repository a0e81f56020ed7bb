import EscrowCore
import EscrowEgress
import Testing
@testable import EscrowReports

/// How requests over time are bucketed: per day, week, month or group of years, so the chart keeps
/// a readable number of bars whatever the span.
struct RequestTimelineTests {
    /// Spans (first and last request, days after 2026-01-07) and the unit they are shown in.
    static let spans: [(first: Int64, last: Int64, unit: RequestTimeline.Unit, buckets: Int)] = [
        (0, 0, .day, 1),
        (0, 30, .day, 31),
        (0, 31, .week, 5),  // Wednesday 2026-01-07 to Saturday 2026-02-07: Mondays 01-05 to 02-02
        (0, 365, .week, 53),
        (0, 730, .month, 25),
        (-20_454, 27_000, .years(3), 44),  // 1970-01-01 to 2099-12-…
    ]

    @Test(arguments: spans.indices)
    func theSpanPicksTheUnit(index: Int) {
        let span = Self.spans[index]
        let requests = [span.first, (span.first + span.last) / 2, span.last].map { day in
            TransparencyReportTests.request(app: "a", host: "h.example", domain: "h.example", tracker: nil,
                                            time: TransparencyReportTests.day0 + day * 86_400)
        }
        let timeline = RequestTimeline(RequestTally(requests))
        #expect(timeline.unit == span.unit)
        #expect(timeline.buckets.count == span.buckets)
        #expect(timeline.buckets.reduce(0) { $0 + $1.total } == 3)
        #expect(timeline.buckets.first?.total ?? 0 >= 1 && timeline.buckets.last?.total ?? 0 >= 1)
    }

    @Test func weeksStartOnMonday() {
        for day in -10...10 {
            let monday = RequestTimeline.monday(of: day)
            #expect(monday <= day && day - monday < 7)
            #expect(RequestTimeline.isoDate(monday) == RequestTimeline.isoDate(RequestTimeline.monday(of: monday)))
        }
        #expect(RequestTimeline.isoDate(RequestTimeline.monday(of: 0)) == "1969-12-29")
        #expect(RequestTimeline.isoDate(RequestTimeline.monday(of: 20_460)) == "2026-01-05")  // Wednesday 2026-01-07
    }

    @Test func extremeTimesStayWithinTheBucketLimit() {
        let requests = [Int64.min, 0, Int64.max].map {
            TransparencyReportTests.request(app: "a", host: "h.example", domain: "h.example", tracker: nil, time: $0)
        }
        let timeline = RequestTimeline(RequestTally(requests))
        #expect(timeline.buckets.count <= RequestTimeline.maximumBuckets)
        #expect(timeline.buckets.reduce(0) { $0 + $1.total } == 3)
        let html = TransparencyReport(generated: "now", flows: [], apps: [], requests: requests).html()
        #expect(html.ranges(of: "<svg ").count == 2)  // no app metrics given: no tracker-share chart
    }

    @Test func appsBeyondTheSeriesLimitAreCountedTogether() {
        let requests = (0..<12).flatMap { app in
            (0...app).map { _ in
                TransparencyReportTests.request(app: "com.example.app\(app)", host: "h.example", domain: "h.example",
                                                tracker: nil, time: TransparencyReportTests.day0)
            }
        }
        let timeline = RequestTimeline(RequestTally(requests))
        #expect(timeline.series.count == RequestTimeline.maximumSeries)
        #expect(timeline.hasOther)
        #expect(timeline.series.first == "com.example.app11")
        #expect(timeline.series.last == "5 other apps")
        #expect(timeline.buckets[0].counts.last == 15)  // the five apps with 1…5 requests
        #expect(timeline.buckets[0].total == requests.count)
    }
}
