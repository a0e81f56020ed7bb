import EscrowCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A host name as the escrow compares it: ASCII (internationalized labels in their `xn--` form),
/// lower case, without a trailing dot, its labels checked; or an IP address.
///
/// Egress is recorded and matched by host name only (never a path or a query), so this is the
/// one place a host's spelling is settled: `Tracker.Example.COM.` and `tracker.example.com` are
/// one host.
public struct HostName: Sendable, Hashable, CustomStringConvertible {
    /// The normalized name (`www.example.com`, `xn--55qx5d.cn`, `192.0.2.1`, `::1`).
    public let text: String
    /// An IPv4 or IPv6 address rather than a name: it has no registrable domain.
    public let isIPAddress: Bool

    /// The longest host name DNS allows, in bytes.
    public static let maximumLength = 253

    /// Normalizes `raw` (a URL's host: `[v6]` brackets allowed); nil when it is not a host name or
    /// an IP address (empty labels, a label over 63 bytes, characters a host cannot hold).
    public init?(_ raw: some StringProtocol) {
        var host = Substring(raw)
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.hasSuffix(".") { host = host.dropLast() }
        guard !host.isEmpty else { return nil }
        if Self.isIPAddress(String(host)) {
            text = host.lowercased()
            isIPAddress = true
            return
        }
        // The common case, a name already in its ASCII lower-case form, is checked in one pass.
        if let checked = Self.checkedLowercaseASCII(host) {
            text = checked
            isIPAddress = false
            return
        }
        var labels: [String] = []
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            guard let ascii = Punycode.asciiLabel(Substring(label.lowercased())), Self.isValidLabel(ascii) else { return nil }
            labels.append(ascii)
        }
        let joined = labels.joined(separator: ".")
        guard joined.utf8.count <= Self.maximumLength else { return nil }
        text = joined
        isIPAddress = false
    }

    /// The labels from the right: `www.example.com` → `com`, `example`, `www`.
    public var labelsFromTheRight: [Substring] {
        text.split(separator: ".").reversed()
    }

    public var description: String { text }

    /// `host` itself when it is already a valid name in lower-case ASCII; nil when it needs the
    /// full path (upper case, non-ASCII labels) or is invalid (the full path then says so).
    private static func checkedLowercaseASCII(_ host: Substring) -> String? {
        let bytes = host.utf8
        guard bytes.count <= maximumLength else { return nil }
        var labelLength = 0
        var previous: UInt8 = UInt8(ascii: ".")
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "."):
                guard labelLength > 0, previous != UInt8(ascii: "-") else { return nil }
                labelLength = 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                labelLength += 1
            case UInt8(ascii: "-"):
                guard labelLength > 0 else { return nil }
                labelLength += 1
            default:
                return nil
            }
            guard labelLength <= 63 else { return nil }
            previous = byte
        }
        guard labelLength > 0, previous != UInt8(ascii: "-") else { return nil }
        return String(host)
    }

    /// Whether `text` is an IPv4 address (four numbers up to 255) or an IPv6 address as
    /// inet_pton(3) reads it. Not `HostAddress.isIPLiteral` alone: it takes any text with a colon
    /// for IPv6, and `http://x.com/` is no address.
    private static func isIPAddress(_ text: String) -> Bool {
        // One pass over the bytes: a name (the common case) has a letter and no colon.
        var onlyDigitsAndDots = true
        for byte in text.utf8 {
            if byte == UInt8(ascii: ":") {
                var address = in6_addr()
                return inet_pton(AF_INET6, text, &address) == 1
            }
            if byte != UInt8(ascii: "."), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { onlyDigitsAndDots = false }
        }
        return onlyDigitsAndDots && HostAddress.isIPLiteral(text)
    }

    /// Letters, digits, `-` and `_` (used by real hosts, e.g. `_dmarc`), 1 to 63 bytes, not
    /// starting or ending with `-`.
    private static func isValidLabel(_ label: String) -> Bool {
        let bytes = label.utf8
        guard (1...63).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
