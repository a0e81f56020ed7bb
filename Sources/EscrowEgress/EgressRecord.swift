import EscrowCore

/// One outbound request of a compute function as the escrow records it: what the network client
/// observed, classified by domain (registrable domain from the Public Suffix List, tracker from
/// the tracker lists).
public struct EgressRecord: Sendable, Hashable {
    public var observation: EgressObservation
    /// The registrable domain (eTLD+1: `example.co.uk` for `www.example.co.uk`); the host itself
    /// for an IP address or a host that is itself a public suffix.
    public var domain: String
    /// The tracker-list domain the host falls under (`doubleclick.net`), nil when none.
    public var tracker: String?

    public init(observation: EgressObservation, domain: String, tracker: String?) {
        self.observation = observation
        self.domain = domain
        self.tracker = tracker
    }

    public var isTracker: Bool { tracker != nil }
}
