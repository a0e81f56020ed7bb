/// Domains known to track people, from EasyList and EasyPrivacy (as Debian's
/// `webext-ublock-origin-firefox` package ships them) and the individual's own list.
///
/// Only the lists' domain-anchored rules are used — `||example.com^` — because the escrow keeps
/// only the host of a request, never its path. A rule's options must fit a request compute code
/// makes, which a browser would call a third-party `xmlhttprequest`: no option, `$third-party`
/// (`3p`), `$important`, and request types that include `xmlhttprequest` (`xhr`), `ping` or
/// `other` (or exclude a type other than those). A rule bound to the page it is on (`domain=`),
/// first-party only, or for scripts, images or popups alone is left out; so are exceptions (`@@`). A rule covers its domain and every
/// name under it, label by label: `||a.com^` matches `a.com` and `x.y.a.com`, never `x-a.com`.
/// An IP address matches only a rule for that exact address.
public struct TrackerList: Sendable {
    private var domains = DomainSet()

    /// Where Debian's `webext-ublock-origin-firefox` package puts EasyList and EasyPrivacy.
    public static let debianFolder =
        "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/uBlock0@raymondhill.net/assets/thirdparties/easylist"
    /// EasyList and EasyPrivacy in `debianFolder`.
    public static let debianPaths = ["\(debianFolder)/easylist.txt", "\(debianFolder)/easyprivacy.txt"]

    /// Domains on the list.
    public var count: Int { domains.count }

    /// An empty list (add domains with `insert`).
    public init() {}

    /// Reads adblock filter lists (EasyList's syntax) at `paths` (`debianPaths`: EasyList and EasyPrivacy).
    ///
    /// - Throws: `EgressListError` when a file cannot be read or holds no domain rule.
    public init(filterLists paths: [String]) throws(EgressListError) {
        for path in paths {
            let before = domains.count
            // Only Debian's own files come from a package; the individual's own lists do not.
            let package = Self.debianPaths.contains(path) ? "webext-ublock-origin-firefox" : nil
            addFilterList(try EgressListError.read(path, what: "a tracker list", package: package))
            guard domains.count > before else { throw .empty(path) }
        }
    }

    /// Adds the domain-anchored rules of an adblock filter list's text; returns how many.
    @discardableResult
    public mutating func addFilterList(_ text: String) -> Int {
        var added = 0
        for line in text.split(whereSeparator: \.isNewline) {
            if let host = Self.domainRule(line) {
                insert(host)
                added += 1
            }
        }
        return added
    }

    /// Adds one domain (and so every name under it); an IP address matches itself only.
    public mutating func insert(_ domain: HostName) {
        domains.insert(domain)
    }

    /// The listed domain `host` falls under (`a.com` for `x.y.a.com`), or nil.
    public func match(_ host: HostName) -> String? { domains.match(host) }

    /// The host of a `||host^` rule whose options fit a request of compute code; nil for any other line.
    static func domainRule(_ line: Substring) -> HostName? {
        guard line.hasPrefix("||"), let caret = line.firstIndex(of: "^") else { return nil }
        let host = line[line.index(line.startIndex, offsetBy: 2)..<caret]
        let rest = line[line.index(after: caret)...]
        guard rest.isEmpty || (rest.hasPrefix("$") && optionsFit(rest.dropFirst())) else { return nil }
        guard !host.contains("*"), !host.contains("/") else { return nil }
        return HostName(host)
    }

    private static let neutralOptions: Set<Substring> = ["third-party", "3p", "important"]
    private static let requestTypes: Set<Substring> = [
        "script", "image", "stylesheet", "css", "object", "xmlhttprequest", "xhr", "subdocument", "frame", "ping",
        "media", "font", "websocket", "other", "popup", "document", "doc",
    ]
    /// The types a request of compute code can be taken for.
    private static let ourTypes: Set<Substring> = ["xmlhttprequest", "xhr", "ping", "other"]

    private static func optionsFit(_ options: Substring) -> Bool {
        var included: [Substring] = []
        for option in options.split(separator: ",") {
            if neutralOptions.contains(option) { continue }
            if option.hasPrefix("~"), requestTypes.contains(option.dropFirst()) {
                if ourTypes.contains(option.dropFirst()) { return false }
                continue
            }
            guard requestTypes.contains(option) else { return false }
            included.append(option)
        }
        return included.isEmpty || included.contains(where: ourTypes.contains)
    }
}
