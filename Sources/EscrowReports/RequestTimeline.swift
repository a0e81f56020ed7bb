import EscrowCore

/// Requests over time, per app, in buckets whose size keeps their number readable: a day when the
/// requests span at most a month, a week (Monday to Sunday) up to `maximumBuckets` weeks, a month up
/// to as many months, else as many years per bucket as it takes. Days are UTC days.
///
/// Apps beyond the `maximumSeries - 1` with the most requests are counted together as one series,
/// so the chart needs at most `maximumBuckets × maximumSeries` bars whatever was recorded.
///
/// Thread safety: a value; safe to share once built.
struct RequestTimeline: Sendable {
    /// How long one bucket is.
    enum Unit: Sendable, Hashable {
        case day, week, month
        /// A bucket of this many calendar years.
        case years(Int)
    }

    /// One bucket of time and the requests in it.
    struct Bucket: Sendable, Hashable {
        /// Its first day, in days since 1970-01-01.
        var firstDay: Int
        /// A short label for the axis (`May 19`, `2025-05`, `2025`).
        var label: String
        /// The period in full, for a tooltip (`2025-05-19`, `week of 2025-05-19`, …).
        var period: String
        /// Requests per series, indexed like `series`.
        var counts: [Int]

        var total: Int { counts.reduce(0, +) }
    }

    /// Days a span may cover to be shown per day.
    static let maximumDays = 31
    /// The most weeks, months or year groups the chart shows.
    static let maximumBuckets = 60
    /// The most series (app colours) the chart shows, the last one possibly `otherApps`.
    static let maximumSeries = 8

    let unit: Unit
    /// The series' names: app ids, most requests first; the last is "other apps" when `hasOther`.
    let series: [String]
    /// Whether the last series counts the apps that did not get a series of their own.
    let hasOther: Bool
    /// The buckets from the first request's to the last one's, empty ones included.
    let buckets: [Bucket]

    /// Buckets the tally's requests per app and day.
    init(_ tally: RequestTally) {
        guard let first = tally.firstDay, let last = tally.lastDay else {
            unit = .day
            series = []
            hasOther = false
            buckets = []
            return
        }
        let ordered = tally.apps.indices.sorted {
            tally.appRequests[$0] != tally.appRequests[$1]
                ? tally.appRequests[$0] > tally.appRequests[$1] : tally.apps[$0] < tally.apps[$1]
        }
        let own = ordered.count <= Self.maximumSeries ? ordered.count : Self.maximumSeries - 1
        var seriesOfApp = [Int](repeating: own, count: tally.apps.count)
        for (position, app) in ordered.prefix(own).enumerated() { seriesOfApp[app] = position }
        let hasOther = own < ordered.count
        let series = ordered.prefix(own).map { tally.apps[$0] } + (hasOther ? ["\(ordered.count - own) other apps"] : [])
        let unit = Self.unit(from: first, to: last)
        var buckets = (0...Self.index(of: last, unit: unit, first: first)).map { index in
            let day = Self.firstDay(ofBucket: index, unit: unit, first: first)
            return Bucket(firstDay: day, label: Self.label(day, unit: unit), period: Self.period(day, unit: unit),
                          counts: [Int](repeating: 0, count: series.count))
        }
        for (key, requests) in tally.perDay {
            buckets[Self.index(of: key.day, unit: unit, first: first)].counts[seriesOfApp[key.app]] += requests
        }
        self.unit = unit
        self.series = series
        self.hasOther = hasOther
        self.buckets = buckets
    }

    /// The largest number of requests in one bucket.
    var largestBucket: Int { buckets.map(\.total).max() ?? 0 }

    // MARK: - Calendar arithmetic (UTC, proleptic Gregorian)

    /// The smallest unit that shows the span in a readable number of buckets.
    static func unit(from first: Int, to last: Int) -> Unit {
        if last - first < maximumDays { return .day }
        if (monday(of: last) - monday(of: first)) / 7 < maximumBuckets { return .week }
        if month(of: last) - month(of: first) < maximumBuckets { return .month }
        let years = year(of: last) - year(of: first) + 1
        return .years((years + maximumBuckets - 1) / maximumBuckets)
    }

    /// The bucket a day falls in, counted from the first day's bucket.
    static func index(of day: Int, unit: Unit, first: Int) -> Int {
        switch unit {
        case .day: day - first
        case .week: (monday(of: day) - monday(of: first)) / 7
        case .month: month(of: day) - month(of: first)
        case .years(let step): (year(of: day) - year(of: first)) / step
        }
    }

    /// The first day of the bucket `index`.
    static func firstDay(ofBucket index: Int, unit: Unit, first: Int) -> Int {
        switch unit {
        case .day: return first + index
        case .week: return monday(of: first) + 7 * index
        case .month:
            let month = month(of: first) + index
            let year = month >= 0 ? month / 12 : (month - 11) / 12
            return Timestamp.daysFromCivil(year: year, month: month - year * 12 + 1, day: 1)
        case .years(let step):
            return Timestamp.daysFromCivil(year: year(of: first) + index * step, month: 1, day: 1)
        }
    }

    /// The Monday on or before the day (1970-01-01 was a Thursday).
    static func monday(of day: Int) -> Int {
        day - ((day + 3) % 7 + 7) % 7
    }

    /// Months since year 0 of the day's month.
    static func month(of day: Int) -> Int {
        let date = Timestamp.civilFromDays(day)
        return date.year * 12 + date.month - 1
    }

    /// The calendar year of the day.
    static func year(of day: Int) -> Int {
        Timestamp.civilFromDays(day).year
    }

    // MARK: - Labels

    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The bucket's axis label.
    static func label(_ day: Int, unit: Unit) -> String {
        let date = Timestamp.civilFromDays(day)
        switch unit {
        case .day, .week: return "\(monthNames[date.month - 1]) \(date.day)"
        case .month: return "\(monthNames[date.month - 1]) \(date.year)"
        case .years(let step): return step == 1 ? "\(date.year)" : "\(date.year)–\(date.year + step - 1)"
        }
    }

    /// The bucket's period in full.
    static func period(_ day: Int, unit: Unit) -> String {
        switch unit {
        case .day: return isoDate(day)
        case .week: return "week of \(isoDate(day)) to \(isoDate(day + 6))"
        case .month, .years: return label(day, unit: unit)
        }
    }

    /// `YYYY-MM-DD` of a day.
    static func isoDate(_ day: Int) -> String {
        let date = Timestamp.civilFromDays(day)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(date.year)-\(two(date.month))-\(two(date.day))"
    }
}
