/// What one app's dataflows did on the network, with its rank among all apps for each metric
/// (AppChk's per-app metrics).
public struct AppMetrics: Sendable, Hashable {
    /// A metric apps are ranked by. Rank 1 is the highest value; apps with equal values share a
    /// rank and the next rank is skipped (1, 1, 3: standard competition ranking).
    public enum Metric: String, Sendable, Hashable, CaseIterable {
        case runs, requests, requestsPerMinute, domains, subdomains, trackerShare
    }

    public var app: String
    /// Runs of the app's dataflows (every audit entry whose compute step ran or was attempted).
    public var runs: Int
    /// Requests its compute code made (blocked ones included).
    public var requests: Int
    /// Total duration of its runs, in seconds.
    public var computeSeconds: Double
    /// `requests` per minute of `computeSeconds` (0 when there was no compute time).
    public var requestsPerMinute: Double
    /// Distinct registrable domains contacted.
    public var domains: Int
    /// Distinct host names contacted.
    public var subdomains: Int
    /// Requests to tracker domains over all requests (0…1; 0 when there were none).
    public var trackerShare: Double
    /// Requests the escrow blocked.
    public var blocked: Int
    /// Requests in which a value of the individual's data was seen.
    public var sentData: Int
    /// The app's rank among all apps for each metric.
    public var ranks: [Metric: Int]

    public init(app: String, runs: Int, requests: Int, computeSeconds: Double, requestsPerMinute: Double, domains: Int,
                subdomains: Int, trackerShare: Double, blocked: Int, sentData: Int, ranks: [Metric: Int] = [:]) {
        self.app = app
        self.runs = runs
        self.requests = requests
        self.computeSeconds = computeSeconds
        self.requestsPerMinute = requestsPerMinute
        self.domains = domains
        self.subdomains = subdomains
        self.trackerShare = trackerShare
        self.blocked = blocked
        self.sentData = sentData
        self.ranks = ranks
    }

    /// The metric's value, as a number.
    public func value(_ metric: Metric) -> Double {
        switch metric {
        case .runs: Double(runs)
        case .requests: Double(requests)
        case .requestsPerMinute: requestsPerMinute
        case .domains: Double(domains)
        case .subdomains: Double(subdomains)
        case .trackerShare: trackerShare
        }
    }
}
