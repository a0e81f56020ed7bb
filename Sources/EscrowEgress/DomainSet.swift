/// A set of domains, each covering itself and every name under it, label by label from the right:
/// `a.com` covers `a.com` and `x.y.a.com`, never `x-a.com`. An IP address covers only itself.
///
/// The one matcher behind the tracker lists and the individual's block and ignore filters: one
/// hash-table probe per label of the host, whatever the number of domains in the set.
///
/// Thread safety: a value; share it freely once built.
public struct DomainSet: Sendable {
    private var trie = LabelTrie()

    /// Domains in the set.
    public var count: Int { trie.count }

    /// An empty set.
    public init() {}

    /// A set of `domains`.
    public init(_ domains: some Sequence<HostName>) {
        for domain in domains { insert(domain) }
    }

    /// Adds a domain (and so every name under it); an IP address covers itself only.
    public mutating func insert(_ domain: HostName) {
        trie.insert(domain.labelsFromTheRight, mark: domain.isIPAddress ? .address : .name)
    }

    /// The domain of the set that `host` falls under (`a.com` for `x.y.a.com`), or nil. When
    /// several do (`a.com` and `y.a.com`), the shortest: walking from the right stops at the first.
    public func match(_ host: HostName) -> String? {
        var node = LabelTrie.root
        var matchedStart: Int?
        let length = host.text.utf8.count
        LabelTrie.forEachLabelFromTheRight(of: host.text) { label, start in
            guard let next = trie.child(node, label) else { return false }
            node = next
            let marks = trie.marks(next)
            if (marks.contains(.name) && !host.isIPAddress) || (marks.contains(.address) && host.isIPAddress && start == 0) {
                matchedStart = start
                return false
            }
            return true
        }
        guard let matchedStart else { return nil }
        return matchedStart == 0 ? host.text : String(decoding: host.text.utf8.suffix(length - matchedStart), as: UTF8.self)
    }

    /// Whether `host` falls under a domain of the set.
    public func contains(_ host: HostName) -> Bool { match(host) != nil }
}
