/// What the individual asked the escrow to do with a domain and every name under it.
public enum FilterAction: String, Sendable, Hashable, CaseIterable {
    /// Refuse its requests inside the compute function; record them as blocked.
    case block
    /// Let its requests through without recording them.
    case ignore
    /// Count it as a tracker, besides the domains of EasyList and EasyPrivacy.
    case tracker
}

/// The individual's filters, ready to match hosts: one `DomainSet` per action.
///
/// A host under both a blocked and an ignored domain is blocked: a block is never hidden.
///
/// Thread safety: a value; share it freely.
public struct EgressPolicy: Sendable {
    public var blocked = DomainSet()
    public var ignored = DomainSet()
    public var trackers = DomainSet()

    public init() {}

    /// A policy of `filters` (domain, action); domains that are not host names are skipped.
    public init(_ filters: some Sequence<(domain: String, action: FilterAction)>) {
        for filter in filters {
            guard let host = HostName(filter.domain) else { continue }
            switch filter.action {
            case .block: blocked.insert(host)
            case .ignore: ignored.insert(host)
            case .tracker: trackers.insert(host)
            }
        }
    }

    /// Whether the individual has no filter at all.
    public var isEmpty: Bool { blocked.count == 0 && ignored.count == 0 && trackers.count == 0 }

    /// Whether a request to `host` goes unrecorded.
    public func ignores(_ host: HostName) -> Bool {
        ignored.contains(host) && !blocked.contains(host)
    }
}
