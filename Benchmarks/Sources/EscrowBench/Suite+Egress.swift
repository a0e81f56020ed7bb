import EscrowEgress
import Foundation

// Issue 14: tracker lookups (how fast a host is matched against EasyList + EasyPrivacy, and what
// the loaded lists cost in memory), then recording (Suite+EgressRecording), the reports
// (Suite+EgressReports) and our HTTP client against AsyncHTTPClient (Suite+HTTPClients).
extension Suite {
    /// Every egress figure: the parts `egress-record`, `egress-reports` and `egress-http` select
    /// alone.
    func egress() async throws -> [FigureResult] {
        var results = try await trackerLookups()
        results += try await egressRecording()
        results += try await egressReports()
        results += try await httpClients()
        return results
    }

    /// Hosts looked up per repetition: half under a listed domain (one to three labels deeper,
    /// as real tracker hosts are), half not (names under common suffixes, and listed domains
    /// with a `x-` prefix glued to their first label, which must not match).
    static let egressHostCount = 20_000

    func trackerLookups() async throws -> [FigureResult] {
        let before = try Self.ownAnonymousMegabytes()
        let clock = ContinuousClock()
        var list = TrackerList()
        let loadTime = try clock.measure { list = try TrackerList(filterLists: TrackerList.debianPaths) }
        let after = try Self.ownAnonymousMegabytes()
        let hosts = try Self.egressHosts(list)
        let raw = hosts.map(\.text)

        struct Sample { var lookup = 0.0, normalizeAndLookup = 0.0 }
        let rounds = 10
        let samples = try await sampler.collect(
            setUp: { () },
            body: { _ -> Sample in
                var matched = 0
                let lookup = clock.measure {
                    for _ in 0..<rounds {
                        for host in hosts where list.match(host) != nil { matched += 1 }
                    }
                }
                var normalizedMatches = 0
                let full = clock.measure {
                    for _ in 0..<rounds {
                        for text in raw {
                            if let host = HostName(text), list.match(host) != nil { normalizedMatches += 1 }
                        }
                    }
                }
                guard matched == normalizedMatches, matched == rounds * hosts.count / 2 else {
                    throw BenchError("\(matched / rounds) of \(hosts.count) hosts matched, not half")
                }
                let count = Double(rounds * hosts.count)
                return Sample(lookup: count / lookup.seconds, normalizeAndLookup: count / full.seconds)
            },
            tearDown: { _ in }
        )
        let name = "tracker lookup, EasyList + EasyPrivacy (\(list.count) domains)"
        return [
            FigureResult(name: "\(name): normalized host", unit: .lookupsPerSecond, values: samples.map(\.lookup),
                         target: 2_000_000, higherIsBetter: true),
            FigureResult(name: "\(name): raw host, normalized first", unit: .lookupsPerSecond,
                         values: samples.map(\.normalizeAndLookup), higherIsBetter: true),
            FigureResult(name: "tracker lists: load (parse both files)", unit: .milliseconds, seconds: [loadTime.seconds]),
            FigureResult(name: "tracker lists: memory (anonymous RSS growth)", unit: .megabytes, values: [after - before],
                         target: 20),
        ]
    }

    /// The benchmark's hosts, deterministic: half tracker hosts (each checked to match), half
    /// not (a generated name that happens to fall under a listed domain is replaced).
    static func egressHosts(_ list: TrackerList) throws -> [HostName] {
        var domains: [Substring] = []
        for path in TrackerList.debianPaths {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("||") && line.hasSuffix("^") {
                let host = line.dropFirst(2).dropLast()
                if !host.contains("*"), !host.contains("/"), !host.contains(":"), host.contains("."),
                   !host.split(separator: ".").allSatisfy({ Int($0) != nil }) { domains.append(host) }
            }
        }
        guard !domains.isEmpty else { throw BenchError("no domain rules in \(TrackerList.debianPaths)") }
        var random = SeededGenerator(seed: 14)
        let words = ["cdn", "static", "api", "www", "img", "shop", "news", "mail", "app", "edge", "eu", "us"]
        let suffixes = ["com", "org", "net", "co.uk", "de", "io", "com.au", "fr"]
        var hosts: [HostName] = []
        while hosts.count < egressHostCount {
            let domain = random.pick(domains)
            let deeper = (0..<Int.random(in: 1...3, using: &random)).map { _ in random.pick(words) }.joined(separator: ".")
            let other = Bool.random(using: &random)
                ? "\(random.pick(words))\(Int.random(in: 0..<1000, using: &random)).\(random.pick(words))-site.\(random.pick(suffixes))"
                : "\(deeper).x-\(domain)"
            guard let tracker = HostName("\(deeper).\(domain)"), let clean = HostName(other), list.match(clean) == nil else { continue }
            guard list.match(tracker) != nil else { throw BenchError("\(tracker) does not match its own rule") }
            hosts.append(tracker)
            hosts.append(clean)
        }
        return hosts
    }

    /// This process's anonymous resident memory (heap), in MiB.
    static func ownAnonymousMegabytes() throws -> Double {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Double($0) }) else {
            throw BenchError("/proc/self/status has no RssAnon")
        }
        return kilobytes / 1024
    }
}
