import EscrowCore
import EscrowHost
import EscrowStore
import Foundation
import Logging
import Synchronization

/// One run of the tier figures.
struct TierRun: Sendable {
    let latency: Double
    let finished: ContinuousClock.Instant
    /// The address that answered it; nil when it failed.
    let answeredBy: String?
    var ok: Bool { answeredBy != nil }
}

// Issue 17: the compute tier under load — many escrow hosts against 1, 2 and 3 replicas (real
// escrow-compute processes on 127.0.0.1), and what a replica's death costs them.
extension Suite {
    static let tierHosts = 64
    static let tierCallsPerHost = 1000

    /// Per replica count (1, 2, 3): `tierHosts` escrow hosts, each with its own home holding the
    /// sample contacts and the server registered with every replica's address, each running
    /// `contacts.tuples` on the server `tierCallsPerHost` times, one run after another, all hosts at
    /// once. Reports runs per second over the whole load and the p99 of a run (the full run():
    /// guard, access, the call, the audit entry). Then, with 3 replicas and the load running, one
    /// replica is killed (SIGKILL): per host whose first address it was, the time from the kill
    /// to that host's first run that succeeded afterwards.
    ///
    /// Every process runs on this machine: the replicas and the hosts share its cores, so the
    /// figures show what the host side does with more replicas, not what more machines would give.
    func tier() async throws -> [FigureResult] {
        let compute = try Self.escrowExecutable(product: "escrow-compute")
        let folder = try Self.certificates()
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let contacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/SampleData/contacts.vcf")
        let request = DataflowRequest(app: "org.signal", purpose: "contact discovery",
                                      access: "SELECT givenName, familyName, phoneNumbers FROM Contact",
                                      compute: "contacts.tuples", destination: .server("tier"))
        let logger = self.logger
        let calls = Self.tierCallsPerHost

        func startReplica() async throws -> (process: Process, address: String) {
            let server = Process()
            server.executableURL = compute
            server.arguments = ["--listen", "127.0.0.1:0", "--cert", path("server.pem"), "--key", path("server-key.pem"),
                                "--client-ca", path("ca.pem"), "--max-concurrency", "\(Self.tierHosts)"]
            let output = Pipe()
            server.standardOutput = output
            server.standardError = FileHandle.nullDevice
            try server.run()
            return (server, "127.0.0.1:\(try await Self.listeningPort(output, server))")
        }

        /// The hosts, each approved for the flow on `addresses` (each starts at its own place in the list).
        func hosts(on addresses: [String]) async throws -> [(host: EscrowHost, scratch: ScratchHome)] {
            var hosts: [(EscrowHost, ScratchHome)] = []
            for _ in 0..<Self.tierHosts {
                let scratch = try ScratchHome.initialized()
                _ = try Importer(home: scratch.home, logger: logger).importContacts(from: contacts)
                let host = try EscrowHost(home: scratch.home, logger: logger)
                try host.servers.add(id: "tier", addresses: addresses, caFile: path("ca.pem"), serverName: "compute-1",
                                     clientCertificate: path("client.pem"), clientKey: path("client-key.pem"))
                try await Self.approveAlways(host, request)
                hosts.append((host, scratch))
            }
            return hosts
        }

        /// Every host runs `calls` runs, all at once: per host, in order, each run's latency, when
        /// it finished, and the address that answered it (nil: the run failed).
        func load(_ hosts: [EscrowHost], during: (@Sendable () async throws -> Void)? = nil)
            async throws -> (seconds: Double, runs: [[TierRun]]) {
            let clock = ContinuousClock()
            let started = clock.now
            let runs = try await withThrowingTaskGroup(of: (Int, [TierRun]).self) { group in
                for (index, host) in hosts.enumerated() {
                    group.addTask {
                        var runs: [TierRun] = []
                        runs.reserveCapacity(calls)
                        for _ in 0..<calls {
                            let before = clock.now
                            var answeredBy: String?
                            do { answeredBy = try await host.run(request).auditEntry.facts.attempts.last?.address } catch {}
                            let after = clock.now
                            runs.append(TierRun(latency: (after - before).seconds, finished: after, answeredBy: answeredBy))
                        }
                        return (index, runs)
                    }
                }
                if let during { group.addTask { try await during(); return (-1, []) } }
                var all = Array(repeating: [TierRun](), count: hosts.count)
                for try await (index, runs) in group where index >= 0 { all[index] = runs }
                return all
            }
            return ((clock.now - started).seconds, runs)
        }

        var results: [FigureResult] = []
        for replicaCount in 1...3 {
            var replicas: [(process: Process, address: String)] = []
            for _ in 0..<replicaCount { replicas.append(try await startReplica()) }
            defer { for replica in replicas { Self.stop(replica.process) } }
            let hosts = try await hosts(on: replicas.map(\.address))
            defer { for (_, scratch) in hosts { scratch.remove() } }
            let (seconds, runs) = try await load(hosts.map(\.host))
            let latencies = runs.flatMap { $0.map(\.latency) }.sorted()
            guard runs.allSatisfy({ $0.allSatisfy(\.ok) }) else { throw BenchError("a run failed with no replica killed") }
            let p99 = latencies[min(latencies.count - 1, Int((Double(latencies.count) * 0.99).rounded(.up)) - 1)]
            let name = "tier: \(Self.tierHosts) hosts × \(calls) runs, \(replicaCount) replica\(replicaCount == 1 ? "" : "s")"
            results.append(FigureResult(name: name, unit: .callsPerSecond, values: [Double(latencies.count) / seconds],
                                        higherIsBetter: true))
            results.append(FigureResult(name: "  p99 of a run", unit: .milliseconds, seconds: [p99]))
        }

        // A replica's death under load: 3 replicas, the first killed 2 s into the load.
        var replicas: [(process: Process, address: String)] = []
        for _ in 0..<3 { replicas.append(try await startReplica()) }
        defer { for replica in replicas { Self.stop(replica.process) } }
        let hosts = try await hosts(on: replicas.map(\.address))
        defer { for (_, scratch) in hosts { scratch.remove() } }
        let victim = replicas[0].process
        let victimAddress = replicas[0].address
        let killedAt = Mutex<ContinuousClock.Instant?>(nil)
        let (_, runs) = try await load(hosts.map(\.host)) {
            try await Task.sleep(for: .seconds(2))
            killedAt.withLock { $0 = .now }
            kill(victim.processIdentifier, SIGKILL)
        }
        guard let kill = killedAt.withLock({ $0 }) else { throw BenchError("the replica was not killed") }
        // The hosts whose runs the killed replica answered last before it died.
        let failovers = runs.compactMap { runs -> Double? in
            guard runs.last(where: { $0.ok && $0.finished < kill })?.answeredBy == victimAddress else { return nil }
            return runs.first { $0.ok && $0.finished > kill }.map { ($0.finished - kill).seconds }
        }
        let failed = runs.flatMap { $0 }.filter { !$0.ok }.count
        let during = runs.flatMap { $0.filter { $0.finished > kill && $0.finished < kill + .seconds(1) }.map(\.latency) }.sorted()
        print("tier: \(failed) runs failed when the replica died (calls it had in flight; contacts.tuples contacts nothing, so they are sent again)")
        guard !failovers.isEmpty else { throw BenchError("no host that used the killed replica succeeded afterwards") }
        results.append(FigureResult(name: "tier: a replica killed, to each of its hosts' next success", unit: .milliseconds,
                                    seconds: failovers))
        if !during.isEmpty {
            let p99 = during[min(during.count - 1, Int((Double(during.count) * 0.99).rounded(.up)) - 1)]
            results.append(FigureResult(name: "  p99 of a run in the second after the kill", unit: .milliseconds, seconds: [p99]))
        }
        return results
    }
}
