import EscrowCore
import EscrowEgress

extension MinimizedExport {
    /// The domains a person asked to leave out of the export (`escrow export --exclude`), as the
    /// export compares them.
    ///
    /// A privacy option must not fail silently: text that names no domain would leave nothing
    /// out, so it is refused rather than passed on. Accepted: a host name or registrable domain
    /// in any case, with or without a trailing dot, internationalized or not (`Example.COM.`,
    /// `www.example.com`, `bücher.example`), and an IP address (`192.0.2.7`, `2001:db8::1`).
    /// Refused: the empty text, a URL or a path, a wildcard, characters no host name holds, and a
    /// name whose last label is a number but which is no IP address (`2.7`, `999.1.1.1`).
    ///
    /// - Parameter texts: the domains as typed; spaces around each are ignored.
    /// - Returns: each domain normalized, in the order given.
    /// - Throws: `ReportError.notADomain` naming the first text that is none.
    public static func exclusions(_ texts: [String]) throws(ReportError) -> [HostName] {
        try texts.map { text throws(ReportError) in
            let trimmed = text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
            guard let host = HostName(String(trimmed)) else { throw .notADomain(text) }
            if !host.isIPAddress, let last = host.labelsFromTheRight.first, last.allSatisfy(\.isASCIIDigit) {
                throw .notADomain(text)
            }
            return host
        }
    }

    /// The domains of `excluding` under which no request of the export falls (of `app` only, when
    /// given): leaving them out changes nothing, which a person who misspelled one should be told.
    ///
    /// - Returns: those domains, in the order given.
    public static func unmatched(_ excluding: [HostName], in requests: [RecordedRequest], app: String? = nil) -> [HostName] {
        guard !excluding.isEmpty else { return [] }
        var hosts = Set<String>()
        for request in requests where app == nil || request.app == app {
            hosts.insert(request.record.observation.host)
        }
        return excluding.filter { domain in
            let exclusion = Exclusion([domain])
            return !hosts.contains { exclusion.excludes($0) }
        }
    }
}

extension Character {
    /// `0` to `9` (not the other scripts' digits `isNumber` takes).
    fileprivate var isASCIIDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(ascii)
    }
}
