import EscrowCore
import EscrowEgress

/// AppChk's co-occurrence analysis (section 3.3): which other domains are contacted around the
/// times a chosen domain is, ranked so that many close requests come first.
///
/// Given the chosen domain X and a window of T seconds, a request y to another domain is in the
/// window when some request x to X satisfies |t_y − t_x| ≤ T (times in whole seconds). For each
/// other registrable domain Y, N counts Y's requests in the window (each once) and Δt is their mean
/// distance to the nearest x; the score is (Δt² + T/2 + 1)/N, lower is stronger.
///
/// Thread safety: pure functions over values; call them from any task.
public enum Cooccurrence {
    /// The windows AppChk offers, in seconds.
    public static let windows = [0, 5, 15, 30]

    /// Ranks the domains contacted around the requests to `domain`.
    ///
    /// `domain` selects a request when it is the request's registrable domain
    /// (`adjust.com` selects `app.adjust.com` and `s2s.adjust.com`) or exactly its host
    /// (`app.adjust.com` selects that host only). It is compared in its normalized form
    /// (lower case, no trailing dot, internationalized labels as `xn--`). The other requests are
    /// grouped by registrable domain; a selected request never counts for another domain, so with
    /// a host chosen, other hosts of its registrable domain appear under that domain.
    ///
    /// Requests of every app count, as AppChk analyses the whole log: a tracker shared by two
    /// apps shows with both in `apps`. Sorting the chosen domain's times once and searching the
    /// nearest one for every other request makes this O(n log n).
    ///
    /// - Parameters:
    ///   - domain: the chosen domain X.
    ///   - window: T in seconds, one of `windows`.
    ///   - requests: the recorded requests.
    ///   - app: when given, only this app's requests count (for X and for the others).
    /// - Returns: one score per other domain with at least one request in the window, by score
    ///   (lowest first), ties by domain name; empty when X's requests have no neighbours.
    /// - Throws: `ReportError.invalidWindow` for a window not in `windows`;
    ///   `ReportError.unknownDomain` when no request (of `app`, if given) went to `domain`, so a
    ///   misspelt domain is told apart from one without neighbours.
    public static func rank(domain: String, window: Int, requests: [RecordedRequest],
                            app: String? = nil) throws(ReportError) -> [CooccurrenceScore] {
        guard windows.contains(window) else { throw .invalidWindow(window) }
        let chosen = HostName(domain)?.text ?? domain.lowercased()
        func selects(_ record: EgressRecord) -> Bool {
            record.domain == chosen || record.observation.host == chosen
        }

        var anchorTimes: [Int64] = []
        for request in requests where app == nil || request.app == app {
            if selects(request.record) { anchorTimes.append(request.record.observation.time) }
        }
        guard !anchorTimes.isEmpty else { throw .unknownDomain(chosen, app: app) }
        anchorTimes.sort()

        let limit = Int64(window)
        var tallies: [String: Tally] = [:]
        for request in requests where app == nil || request.app == app {
            let record = request.record
            guard !selects(record) else { continue }
            let distance = nearestDistance(to: record.observation.time, in: anchorTimes)
            guard distance <= limit else { continue }
            tallies[record.domain, default: Tally()].add(request, distance: distance)
        }

        var scores = tallies.map { domain, tally in tally.score(domain: domain, window: window) }
        scores.sort { $0.score != $1.score ? $0.score < $1.score : $0.domain < $1.domain }
        return scores
    }

    /// The distance from `time` to the nearest of `sorted` (not empty, ascending), by binary search.
    static func nearestDistance(to time: Int64, in sorted: [Int64]) -> Int64 {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < time { low = middle + 1 } else { high = middle }
        }
        // `low` is the first time ≥ `time`; the nearest is it or the one before.
        var distance = Int64.max
        if low < sorted.count { distance = sorted[low] - time }
        if low > 0 { distance = min(distance, time - sorted[low - 1]) }
        return distance
    }

    /// What `rank` counts for one other domain.
    private struct Tally {
        var occurrences = 0
        var totalDistance: Int64 = 0
        var tracker = false
        var hosts: Set<String> = []
        var apps: Set<String> = []

        mutating func add(_ request: RecordedRequest, distance: Int64) {
            occurrences += 1
            totalDistance += distance
            if request.record.isTracker { tracker = true }
            hosts.insert(request.record.observation.host)
            apps.insert(request.app)
        }

        func score(domain: String, window: Int) -> CooccurrenceScore {
            let count = Double(occurrences)
            let meanDistance = Double(totalDistance) / count
            return CooccurrenceScore(
                domain: domain, score: (meanDistance * meanDistance + Double(window) / 2 + 1) / count,
                occurrences: occurrences, meanDistance: meanDistance, tracker: tracker,
                hosts: hosts.sorted(), apps: apps.sorted())
        }
    }
}
