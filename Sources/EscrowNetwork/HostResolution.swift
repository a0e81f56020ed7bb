import EscrowCore
import EscrowEgress

/// Hosts the escrow's network client reaches at a fixed address instead of through DNS, as curl's
/// `--resolve` does: `weather.example=127.0.0.1`. The request still names the host (its `Host`
/// header and TLS server name), and the host is what egress records; only the connection goes to
/// the address.
///
/// Thread safety: a value.
public struct HostResolution: Sendable, Hashable {
    /// Normalized host name → IP address.
    public private(set) var addresses: [String: String] = [:]

    /// No fixed addresses: every host is resolved through DNS.
    public init() {}

    /// Parses entries `HOST=ADDRESS` (a host name and an IPv4 or IPv6 address).
    ///
    /// - Throws: `HostResolutionError` naming the first entry that is not one.
    public init(parsing entries: some Sequence<some StringProtocol>) throws(HostResolutionError) {
        for entry in entries {
            guard let equals = entry.firstIndex(of: "=") else { throw .notAnEntry(String(entry)) }
            let name = entry[..<equals], address = String(entry[entry.index(after: equals)...])
            guard let host = HostName(name), !host.isIPAddress else { throw .notAHostName(String(name)) }
            guard let literal = HostName(address), literal.isIPAddress else { throw .notAnAddress(address) }
            addresses[host.text] = literal.text
        }
    }

    /// The entries, `HOST=ADDRESS`, sorted by host.
    public var entries: [String] { addresses.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } }
}

/// An entry of a `HostResolution` that cannot be used.
public enum HostResolutionError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAnEntry(String)
    case notAHostName(String)
    case notAnAddress(String)

    public var description: String {
        switch self {
        case .notAnEntry(let entry): "'\(DisplayText.escaped(entry))' is not HOST=ADDRESS (for example weather.example=127.0.0.1)"
        case .notAHostName(let name): "'\(DisplayText.escaped(name))' is not a host name"
        case .notAnAddress(let address): "'\(DisplayText.escaped(address))' is not an IPv4 or IPv6 address"
        }
    }
}
