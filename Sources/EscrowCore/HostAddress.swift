/// Host names as they appear in addresses and URLs.
public enum HostAddress {
    /// Whether `host` is an IPv4 literal (four dot-separated numbers up to 255) or an IPv6
    /// literal (it holds a colon), rather than a DNS name: TLS sends no SNI for, and checks no
    /// DNS name against, a literal.
    public static func isIPLiteral(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return host.contains(":") || (parts.count == 4 && parts.allSatisfy { UInt8($0) != nil })
    }
}
