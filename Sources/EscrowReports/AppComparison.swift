import EscrowCore
import EscrowEgress

/// Two or more apps side by side (`escrow report compare APP APP…`): every metric's values in the
/// order the apps were asked for, which of them exposes the least, and each app's most contacted
/// domains.
///
/// Thread safety: a value; safe to share between tasks.
public struct AppComparison: Sendable, Hashable {
    /// One metric across the compared apps.
    public struct Row: Sendable, Hashable {
        public var metric: AppMetrics.Metric
        /// The metric's value for each app, in the order of `AppComparison.apps`.
        public var values: [Double]
        /// Each app's rank among all apps (not only the compared ones), in the order of `apps`;
        /// 0 when the metrics given carry no rank.
        public var ranks: [Int]
        /// The compared apps with the lowest value, in the order asked: the least network exposure
        /// for the individual (fewer runs, requests, domains, less tracking). Several when they
        /// tie; every app when all tie. Note that rank 1 in `AppMetrics` is the highest value.
        public var best: [String]

        public init(metric: AppMetrics.Metric, values: [Double], ranks: [Int], best: [String]) {
            self.metric = metric
            self.values = values
            self.ranks = ranks
            self.best = best
        }
    }

    /// A registrable domain an app contacted, with how often.
    public struct DomainCount: Sendable, Hashable {
        public var domain: String
        /// Requests to it (blocked ones included).
        public var requests: Int
        /// Whether any of those requests went to a tracker.
        public var tracker: Bool

        public init(domain: String, requests: Int, tracker: Bool) {
            self.domain = domain
            self.requests = requests
            self.tracker = tracker
        }
    }

    /// The apps compared, in the order asked.
    public var apps: [String]
    /// Each app's metrics, in the order of `apps`.
    public var metrics: [AppMetrics]
    /// One row per metric, in the order of `AppMetrics.Metric.allCases`.
    public var rows: [Row]
    /// Each app's most contacted domains (most requests first, ties by name), in the order of `apps`.
    public var topDomains: [[DomainCount]]

    public init(apps: [String], metrics: [AppMetrics], rows: [Row], topDomains: [[DomainCount]]) {
        self.apps = apps
        self.metrics = metrics
        self.rows = rows
        self.topDomains = topDomains
    }

    /// Compares `apps` using the metrics `AppMetrics.compute` made (so ranks are among all apps).
    ///
    /// - Parameters:
    ///   - apps: two or more distinct app ids, in the order the columns should appear.
    ///   - metrics: every app's metrics, as `AppMetrics.compute` returns them.
    ///   - requests: the recorded requests, for each app's most contacted domains (requests of
    ///     other apps are skipped).
    ///   - topDomainCount: how many domains to list per app.
    /// - Throws: `ReportError.tooFewApps` for fewer than two apps, `.duplicateApp` when one is
    ///   named twice, `.unknownApp` (with the known ids) when one is not in `metrics`.
    public static func compare(_ apps: [String], in metrics: [AppMetrics], requests: [RecordedRequest],
                               topDomainCount: Int = 5) throws(ReportError) -> AppComparison {
        guard apps.count >= 2 else { throw .tooFewApps(apps) }
        var seen: Set<String> = []
        for app in apps where !seen.insert(app).inserted {
            throw .duplicateApp(app)
        }
        let byApp = Dictionary(metrics.map { ($0.app, $0) }, uniquingKeysWith: { first, _ in first })
        var chosen: [AppMetrics] = []
        for app in apps {
            guard let entry = byApp[app] else { throw .unknownApp(app, known: byApp.keys.sorted()) }
            chosen.append(entry)
        }
        let rows = AppMetrics.Metric.allCases.map { metric in
            let values = chosen.map { $0.value(metric) }
            let lowest = values.min() ?? 0
            return Row(metric: metric, values: values, ranks: chosen.map { $0.ranks[metric] ?? 0 },
                       best: zip(apps, values).filter { $0.1 == lowest }.map(\.0))
        }
        let domains = topDomains(of: seen, requests: requests, count: topDomainCount)
        return AppComparison(apps: apps, metrics: chosen, rows: rows, topDomains: apps.map { domains[$0] ?? [] })
    }

    /// The `count` most contacted registrable domains of each app in `apps`.
    private static func topDomains(of apps: Set<String>, requests: [RecordedRequest],
                                   count: Int) -> [String: [DomainCount]] {
        var tallies: [String: [String: DomainCount]] = [:]
        for request in requests where apps.contains(request.app) {
            let domain = request.record.domain
            tallies[request.app, default: [:]][domain, default: DomainCount(domain: domain, requests: 0, tracker: false)]
                .add(request.record)
        }
        return tallies.mapValues { counts in
            let sorted = counts.values.sorted {
                $0.requests != $1.requests ? $0.requests > $1.requests : $0.domain < $1.domain
            }
            return Array(sorted.prefix(max(0, count)))
        }
    }
}

extension AppComparison.DomainCount {
    fileprivate mutating func add(_ record: EgressRecord) {
        requests += 1
        if record.isTracker { tracker = true }
    }
}
