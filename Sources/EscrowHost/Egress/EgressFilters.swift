import EscrowCore
import EscrowEgress
import EscrowStore
import Foundation

/// One of the individual's filters: a domain and what to do with it.
public struct EgressFilter: Sendable, Hashable {
    /// The normalized domain (lower case, ASCII); it covers every name under it.
    public let domain: String
    public let action: FilterAction
    /// When it was set, ISO 8601 UTC.
    public let addedAt: String
}

/// The individual's egress filters: block, ignore, or count as a tracker a domain and every name
/// under it (`escrow filter`). Kept in the state database; every run reads them afresh.
///
/// Thread safety: a value over the shared state database.
public struct EgressFilters: Sendable {
    public let state: StateDatabase

    public init(state: StateDatabase) {
        self.state = state
    }

    /// Sets `action` for `domain`, replacing the one it had.
    ///
    /// - Returns: the filter as stored (its domain normalized) and the action it replaced.
    /// - Throws: `FilterError.notADomain` for text that is not a host name or IP address.
    @discardableResult
    public func set(_ action: FilterAction, for domain: String) throws -> (filter: EgressFilter, replaced: FilterAction?) {
        let host = try Self.normalized(domain)
        return try state.write { database in
            let previous = try database.cached("SELECT action FROM EgressFilter WHERE domain = ?")
            defer { previous.reset() }
            try previous.bind(.text(host.text), at: 1)
            let replaced = try previous.step() ? previous.string(0).flatMap(FilterAction.init(rawValue:)) : nil
            let now = state.clock.now().text
            try database.cached("""
                INSERT INTO EgressFilter (domain, action, addedAt) VALUES (?, ?, ?)
                ON CONFLICT(domain) DO UPDATE SET action = excluded.action, addedAt = excluded.addedAt
                """).run([.text(host.text), .text(action.rawValue), .text(now)])
            return (EgressFilter(domain: host.text, action: action, addedAt: now), replaced)
        }
    }

    /// Removes the filter of `domain`.
    ///
    /// - Returns: the filter removed.
    /// - Throws: `FilterError.notFiltered` when the domain has none (naming those that cover it).
    @discardableResult
    public func remove(_ domain: String) throws -> EgressFilter {
        let host = try Self.normalized(domain)
        let filters = try list()
        guard let filter = filters.first(where: { $0.domain == host.text }) else {
            let covering = filters.filter { DomainSet([HostName($0.domain)].compactMap { $0 }).contains(host) }
            throw FilterError.notFiltered(host.text, coveredBy: covering.map(\.domain))
        }
        try state.write { database in
            try database.cached("DELETE FROM EgressFilter WHERE domain = ?").run([.text(host.text)])
        }
        return filter
    }

    /// Every filter, by domain.
    public func list() throws -> [EgressFilter] {
        try state.read { database in
            let query = try database.cached("SELECT domain, action, addedAt FROM EgressFilter ORDER BY domain")
            defer { query.reset() }
            var filters: [EgressFilter] = []
            while try query.step() {
                guard let domain = query.string(0), let action = query.string(1).flatMap(FilterAction.init(rawValue:)) else { continue }
                filters.append(EgressFilter(domain: domain, action: action, addedAt: query.string(2) ?? ""))
            }
            return filters
        }
    }

    /// The filters as a policy to match requests against, and the blocked domains as text (for a
    /// compute server).
    public func policy() throws -> (policy: EgressPolicy, blocked: [String]) {
        let filters = try list()
        return (EgressPolicy(filters.map { ($0.domain, $0.action) }), filters.filter { $0.action == .block }.map(\.domain))
    }

    static func normalized(_ domain: String) throws(FilterError) -> HostName {
        guard let host = HostName(domain.trimmingCharacters(in: .whitespaces)) else { throw .notADomain(domain) }
        return host
    }
}

/// A filter the escrow cannot set or remove.
public enum FilterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a host name or IP address.
    case notADomain(String)
    /// No filter names this domain; `coveredBy` are the filtered domains it falls under.
    case notFiltered(String, coveredBy: [String])

    public var description: String {
        switch self {
        case .notADomain(let text):
            "'\(DisplayText.escaped(text))' is not a domain name (give one like tracker.example or example.co.uk)"
        case .notFiltered(let domain, let covering):
            covering.isEmpty ? "\(domain) has no filter"
                : "\(domain) has no filter of its own; it falls under \(covering.joined(separator: ", ")), whose filter applies"
        }
    }
}
