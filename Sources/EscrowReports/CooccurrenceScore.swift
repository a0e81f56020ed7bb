/// How strongly one domain's requests co-occur with the chosen domain's (AppChk's co-occurrence
/// ranking): lower scores are stronger.
public struct CooccurrenceScore: Sendable, Hashable {
    /// The other registrable domain.
    public var domain: String
    /// AppChk's score (Δt² + T/2 + 1)/N, with Δt = `meanDistance`, T the window and
    /// N = `occurrences`. Lower is stronger.
    public var score: Double
    /// N: the domain's requests within the window of at least one request of the chosen domain,
    /// each counted once.
    public var occurrences: Int
    /// Δt: the mean distance in seconds from those requests to the nearest request of the chosen
    /// domain (at most the window; 0 for a window of 0).
    public var meanDistance: Double
    /// Whether any of those requests went to a tracker.
    public var tracker: Bool
    /// The hosts of those requests, sorted.
    public var hosts: [String]
    /// The apps whose code made those requests, sorted.
    public var apps: [String]

    public init(domain: String, score: Double, occurrences: Int, meanDistance: Double, tracker: Bool,
                hosts: [String], apps: [String]) {
        self.domain = domain
        self.score = score
        self.occurrences = occurrences
        self.meanDistance = meanDistance
        self.tracker = tracker
        self.hosts = hosts
        self.apps = apps
    }
}
