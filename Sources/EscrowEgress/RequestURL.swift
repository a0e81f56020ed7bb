import Foundation

/// An `http`/`https` URL of a request compute code makes, taken apart once: the recorder, the
/// filters and the HTTP client all read the host from here, so the host a request is recorded and
/// blocked under is the host it is sent to.
public struct RequestURL: Sendable, Hashable {
    /// `http` or `https`.
    public let scheme: String
    /// The host as the URL spells it (brackets of an IPv6 address removed), for connecting.
    public let host: String
    /// The host normalized for recording and matching.
    public let hostName: HostName
    public let port: Int
    /// The path and query, `/` when the path is empty.
    public let target: String

    /// Parses `text`; nil when it is not an `http(s)` URL with a valid host name or IP address.
    public init?(_ text: String) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, let hostName = HostName(host) else { return nil }
        self.scheme = scheme
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.hostName = hostName
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        self.target = target
    }

    public var isSecure: Bool { scheme == "https" }
}
