import EscrowCore
import EscrowEgress

/// What the transparency report counts over the recorded requests, gathered in one pass: totals,
/// requests per app and UTC day, and requests per registrable domain.
///
/// Its size grows with the distinct apps, days and domains, never with the requests themselves,
/// so everything drawn from it (the charts) stays bounded however many requests were recorded.
///
/// Thread safety: a value; safe to share once built.
struct RequestTally: Sendable {
    /// Requests to one registrable domain.
    struct DomainCount: Sendable, Hashable {
        var requests = 0
        /// Those of them whose host is on a tracker list.
        var trackerRequests = 0

        /// Counts one more request, to a tracker or not.
        mutating func add(tracker: Bool) {
            requests += 1
            if tracker { trackerRequests += 1 }
        }
    }

    /// An app (its index in `apps`) on a UTC day (days since 1970-01-01).
    struct DayApp: Sendable, Hashable {
        var day: Int
        var app: Int
    }

    /// All requests.
    private(set) var total = 0
    /// Requests whose host is on a tracker list.
    private(set) var trackerRequests = 0
    /// Requests the escrow blocked.
    private(set) var blocked = 0
    /// Requests in which a value of the individual's data was seen.
    private(set) var sentData = 0
    /// The apps that made requests, in the order of their first request.
    private(set) var apps: [String] = []
    /// Requests per app, indexed like `apps`.
    private(set) var appRequests: [Int] = []
    /// Requests per registrable domain.
    private(set) var domains: [String: DomainCount] = [:]
    /// Requests per app and day.
    private(set) var perDay: [DayApp: Int] = [:]
    /// The first and the last day with a request; nil when there were none.
    private(set) var firstDay: Int?
    private(set) var lastDay: Int?

    /// Counts `requests` in one pass.
    init(_ requests: [RecordedRequest]) {
        var appIndex: [String: Int] = [:]
        var lastApp: (id: String, index: Int)?
        for request in requests {
            let index: Int
            if let lastApp, lastApp.id == request.app {
                index = lastApp.index
            } else if let known = appIndex[request.app] {
                index = known
            } else {
                index = apps.count
                appIndex[request.app] = index
                apps.append(request.app)
                appRequests.append(0)
            }
            lastApp = (request.app, index)

            let record = request.record
            total += 1
            appRequests[index] += 1
            if record.isTracker { trackerRequests += 1 }
            if record.observation.blocked { blocked += 1 }
            if record.observation.sentData { sentData += 1 }
            domains[record.domain, default: DomainCount()].add(tracker: record.isTracker)

            let day = Self.day(of: record.observation.time)
            perDay[DayApp(day: day, app: index), default: 0] += 1
            firstDay = min(firstDay ?? day, day)
            lastDay = max(lastDay ?? day, day)
        }
    }

    /// The UTC day a time (seconds since 1970) falls on, as days since 1970-01-01.
    static func day(of seconds: Int64) -> Int {
        let (days, remainder) = seconds.quotientAndRemainder(dividingBy: 86_400)
        return Int(remainder < 0 ? days - 1 : days)
    }

    /// The `limit` domains with the most requests, most first (ties by name), chosen without
    /// sorting them all.
    func topDomains(_ limit: Int) -> [(domain: String, count: DomainCount)] {
        guard limit > 0 else { return [] }
        func precedes(_ a: (domain: String, count: DomainCount), _ b: (domain: String, count: DomainCount)) -> Bool {
            a.count.requests != b.count.requests ? a.count.requests > b.count.requests : a.domain < b.domain
        }
        var top: [(domain: String, count: DomainCount)] = []
        top.reserveCapacity(limit + 1)
        for (domain, count) in domains {
            let entry = (domain: domain, count: count)
            if top.count == limit, let last = top.last, !precedes(entry, last) { continue }
            let position = top.firstIndex { precedes(entry, $0) } ?? top.count
            top.insert(entry, at: position)
            if top.count > limit { top.removeLast() }
        }
        return top
    }
}
