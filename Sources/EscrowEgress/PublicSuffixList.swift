import Foundation

/// The Public Suffix List: which part of a host name anyone may register under (`com`, `co.uk`,
/// `github.io`), so that `tracker.example.co.uk` is counted under its registrable domain
/// `example.co.uk` (its "eTLD+1").
///
/// Read from Debian's `publicsuffix` package (`/usr/share/publicsuffix/public_suffix_list.dat`),
/// ICANN and private sections alike, as browsers do. The rules of https://publicsuffix.org/list/:
/// the longest matching rule wins, a wildcard (`*.ck`) matches any one label, an exception
/// (`!www.ck`) overrides the wildcard, and a name no rule matches has its last label as suffix.
public struct PublicSuffixList: Sendable {
    private var trie = LabelTrie()

    /// Where Debian's `publicsuffix` package puts the list.
    public static let debianPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// Rules read.
    public var ruleCount: Int { trie.count }

    /// Reads the list at `path`.
    ///
    /// - Throws: `EgressListError` when the file cannot be read or holds no rule.
    public init(contentsOf path: String = PublicSuffixList.debianPath) throws(EgressListError) {
        try self.init(text: try EgressListError.read(path, what: "the Public Suffix List", package: "publicsuffix"), source: path)
    }

    /// Parses the list's text (one rule per line, `//` comments).
    public init(text: String, source: String = "the Public Suffix List") throws(EgressListError) {
        for line in text.split(whereSeparator: \.isNewline) {
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { continue }
            let isException = rule.hasPrefix("!")
            let body = isException ? rule.dropFirst() : rule
            // A wildcard label stays `*`; every other label is normalized as a host's would be.
            var labels: [Substring] = []
            var valid = true
            for label in body.split(separator: ".", omittingEmptySubsequences: false).reversed() {
                if label == "*" { labels.append("*"); continue }
                guard let host = HostName(label), !host.isIPAddress, !host.text.contains(".") else { valid = false; break }
                labels.append(Substring(host.text))
            }
            guard valid, !labels.isEmpty else { continue }
            trie.insert(labels, mark: isException ? .exception : .name)
        }
        guard trie.count > 0 else { throw .empty(source) }
    }

    /// The public suffix of `host` (`co.uk` for `www.example.co.uk`); nil for an IP address.
    public func publicSuffix(of host: HostName) -> String? {
        guard !host.isIPAddress else { return nil }
        return Self.tail(of: host.text, from: suffix(of: host.text).suffix)
    }

    /// The registrable domain of `host` (`example.co.uk` for `www.example.co.uk`): its public
    /// suffix and one label more. Nil for an IP address and for a host that is itself a public
    /// suffix (`co.uk`).
    public func registrableDomain(of host: HostName) -> String? {
        guard !host.isIPAddress else { return nil }
        return suffix(of: host.text).registrable.map { Self.tail(of: host.text, from: $0) }
    }

    private static func tail(of host: String, from offset: Int) -> String {
        String(decoding: host.utf8.dropFirst(offset), as: UTF8.self)
    }

    /// Where, in `host`'s bytes, its public suffix starts, and where its registrable domain does
    /// (nil when the host is itself a public suffix).
    private func suffix(of host: String) -> (suffix: Int, registrable: Int?) {
        var starts: [Int] = []  // where each label from the right starts
        starts.reserveCapacity(8)
        var node = LabelTrie.root
        var length = 1 // no rule matches: the prevailing rule is `*`
        var walking = true
        LabelTrie.forEachLabelFromTheRight(of: host) { label, start in
            starts.append(start)
            guard walking else { return starts.count <= length }
            let index = starts.count - 1
            if let wildcard = trie.child(node, "*"), trie.marks(wildcard).contains(.name) {
                length = max(length, index + 1)
            }
            guard let next = trie.child(node, label) else {
                walking = false
                return starts.count <= length
            }
            node = next
            let marks = trie.marks(next)
            // An exception wins over every other rule: the suffix is the exception less its first label.
            if marks.contains(.exception) {
                length = index
                walking = false
                return starts.count <= length
            }
            if marks.contains(.name) { length = max(length, index + 1) }
            return true
        }
        let suffixStart = starts[min(length, starts.count) - 1]
        return (suffixStart, length < starts.count ? starts[length] : nil)
    }
}

/// A list the escrow's egress recording reads cannot be used.
public enum EgressListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be read.
    case unreadable(path: String, what: String, package: String?, reason: String)
    /// The file holds no rule the escrow can use.
    case empty(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let what, let package, let reason):
            "cannot read \(what) at \(path): \(reason)"
                + (package.map { " (Debian's `\($0)` package installs it: apt-get install --no-install-recommends \($0))" } ?? "")
        case .empty(let source):
            "\(source) holds no rule the escrow can use"
        }
    }

    static func read(_ path: String, what: String, package: String?) throws(EgressListError) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
            throw .unreadable(path: path, what: what, package: package, reason: reason)
        }
    }
}
