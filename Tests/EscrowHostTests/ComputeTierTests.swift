import EscrowCore
@testable import EscrowHost
import EscrowNetwork
import EscrowTestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// The compute tier on real hosts: three `escrow-compute` replicas, each in a network namespace of
/// its own, behind HAProxy (TCP mode, health checks on `/readyz`), and one escrow host driving
/// flows through both paths — the address list and the balancer's single address — while one
/// replica and then another are killed mid-load and both restarted. No run may be lost or run
/// twice, and every attempt is in the audit.
@Suite(.serialized) struct ComputeTierTests {
    static let replicaPort = 7443
    static let healthPort = 7444
    static let lastLocation = "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1"
    static let contactsSQL = "SELECT givenName, familyName, phoneNumbers FROM Contact"

    /// One run the load made: its path, and whether the app got its output.
    struct Driven: Sendable {
        let server: String
        /// A run of a function that contacts nothing (contacts.tuples), not of weather.current.
        let pure: Bool
        let succeeded: Bool
        let error: String?
        var started = ContinuousClock.now
        var finished = ContinuousClock.now
    }

    @Test(.disabled(if: TierNetwork.unavailableReason != nil,
                    Comment(rawValue: TierNetwork.unavailableReason ?? "")),
          .timeLimit(.minutes(5)))
    func killingAndRestartingReplicasMidLoadLosesAndDoublesNoRun() async throws {
        var logger = Logger(label: "tier")
        logger.logLevel = .warning
        let network = try await offPool { try TierNetwork(replicas: 3) }
        defer { network.remove() }
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        // The app's weather service, on the test's end of replica 1's pair: every replica reaches
        // it through its default route, under the name the flow gives.
        let platform = try await PlatformServiceProcess.start(host: network.gateway(1))
        defer { platform.stop() }
        let service = "http://weather.tier.test:\(platform.port)"

        let replicas = Replicas()
        defer { replicas.killAll() }
        func start(_ index: Int) async throws {
            let server = try await ComputeServerProcess.start(
                certificates: certificates,
                extraArguments: ["--health-listen", "\(network.replicaHost(index)):\(Self.healthPort)", "--max-concurrency", "64",
                                 "--resolve", "weather.tier.test=\(network.gateway(1))"],
                listen: "\(network.replicaHost(index)):\(Self.replicaPort)", launcher: network.launcher(index))
            replicas.set(index, server)
        }
        for index in 1...3 { try await start(index) }
        let addresses = (1...3).map { "\(network.replicaHost($0)):\(Self.replicaPort)" }
        let balancer = try await BalancerProcess(backends: addresses, healthPort: Self.healthPort)
        defer { balancer.stop() }

        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            host.startServerAddresses(at: 0)
            for (id, list) in [("tier-list", addresses), ("tier-lb", [balancer.address])] {
                try host.servers.add(id: id, addresses: list, caFile: certificates.path("ca.pem"), serverName: "compute-1",
                                     clientCertificate: certificates.path("client.pem"), clientKey: certificates.path("client-key.pem"))
            }
            let parameters = ComputeParameters(["service": service])
            func request(_ server: String, pure: Bool = false) -> DataflowRequest {
                pure
                    ? DataflowRequest(app: "org.signal", purpose: "contact discovery", access: Self.contactsSQL,
                                      compute: "contacts.tuples", destination: .server(server))
                    : DataflowRequest(app: "org.example.weather", purpose: "Weather where you are", access: Self.lastLocation,
                                      compute: "weather.current", destination: .server(server), parameters: parameters)
            }
            // Approve the four flows (their first runs wait for the decision), before the load.
            for server in ["tier-list", "tier-lb"] {
                for pure in [false, true] { _ = try await host.runApproving(request(server, pure: pure)) }
            }
            // Throughput per replica count, before the chaos: six hosts (each starting at its own
            // address) run contacts.tuples 100 times each on servers of 1, 2 and 3 replicas.
            var throughput: [String] = []
            for count in 1...3 {
                let id = "tier-\(count)"
                try host.servers.add(id: id, addresses: Array(addresses.prefix(count)), caFile: certificates.path("ca.pem"),
                                     serverName: "compute-1")
                let hosts = try (0..<6).map { index in
                    let other = try EscrowHost(home: temporary.home, logger: logger)
                    other.startServerAddresses(at: index)
                    return other
                }
                _ = try await host.runApproving(request(id, pure: true))
                let clock = ContinuousClock()
                let started = clock.now
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for other in hosts {
                        group.addTask { for _ in 0..<100 { _ = try await other.run(request(id, pure: true)) } }
                    }
                    try await group.waitForAll()
                }
                let elapsed = clock.now - started
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                throughput.append(String(format: "%d replica%@ %.0f runs/s", count, count == 1 ? "" : "s", 600 / seconds))
            }
            print("tier: 6 hosts × 100 runs of contacts.tuples: " + throughput.joined(separator: ", "))
            // The hosts spread over the replicas: each of three answered some of them.
            let spread = Set(try host.audit.entries().filter { $0.facts.destination == "server:tier-3" }
                .compactMap { $0.facts.attempts.last?.address })
            #expect(spread == Set(addresses), "the hosts' runs were answered by \(spread.sorted())")

            let firstSeq = try #require(try host.audit.entries().last?.seq) + 1
            let before = try await WeatherRequests.count(platform)

            // The load: six workers, three per path (two running weather.current, which contacts the
            // weather service, one contacts.tuples, which contacts nothing), 100 runs each; the
            // chaos at fixed points of it.
            let load = Load()
            let perWorker = 100, workers = 6
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<workers {
                    let server = worker % 2 == 0 ? "tier-list" : "tier-lb"
                    let pure = worker >= 4
                    group.addTask {
                        for _ in 0..<perWorker {
                            let started = ContinuousClock.now
                            do {
                                _ = try await host.run(request(server, pure: pure))
                                load.add(Driven(server: server, pure: pure, succeeded: true, error: nil, started: started))
                            } catch {
                                load.add(Driven(server: server, pure: pure, succeeded: false, error: "\(error)", started: started))
                            }
                        }
                    }
                }
                group.addTask {
                    func reach(_ count: Int) async throws {
                        while load.count < count { try await Task.sleep(for: .milliseconds(5)) }
                    }
                    try await reach(120)
                    load.killed(at: .now)
                    replicas.kill(1)
                    try await reach(240)
                    load.killed(at: .now)
                    replicas.kill(2)
                    try await reach(360)
                    try await start(1)
                    try await start(2)
                }
                try await group.waitForAll()
            }

            let runs = load.runs
            print(load.summary(entries: try host.audit.entries().filter { $0.seq >= firstSeq }))
            #expect(runs.count == perWorker * workers)
            let entries = try host.audit.entries().filter { $0.seq >= firstSeq }
            // Not lost: every run has its one audit entry, with the outcome the app saw.
            #expect(entries.count == runs.count, "one audit entry per run")
            #expect(entries.filter { $0.facts.outcome == .ok }.count == runs.filter(\.succeeded).count)
            for server in ["tier-list", "tier-lb"] {
                #expect(entries.filter { $0.facts.destination == "server:\(server)" }.count == perWorker * workers / 2)
            }
            // A run fails only when its call was delivered to a replica that then died and its
            // function may have contacted a service: at most one per such worker per kill. Its
            // entry says so, and nothing was sent again. A function that contacts nothing is sent
            // again, so none of its runs fails.
            let failed = entries.filter { $0.facts.outcome != .ok }
            #expect(failed.count <= 4 * 2, "failed runs: \(runs.compactMap(\.error))")
            #expect(runs.filter { $0.pure && !$0.succeeded }.isEmpty, "\(runs.filter { $0.pure }.compactMap(\.error))")
            #expect(failed.allSatisfy { $0.facts.functionID == "weather.current" })
            for entry in failed {
                #expect(entry.facts.attempts.last?.outcome == .unanswered, "seq \(entry.seq): \(entry.facts.attempts)")
                #expect(entry.facts.attempts.filter { $0.outcome == .unanswered || $0.outcome == .answered }.count == 1)
            }
            // Every successful run was answered exactly once, after any attempts that sent nothing.
            for entry in entries where entry.facts.outcome == .ok {
                let pure = entry.facts.functionID == "contacts.tuples"
                #expect(entry.facts.attempts.last?.outcome == .answered)
                #expect(entry.facts.attempts.dropLast().allSatisfy { $0.outcome.sentNothing || ($0.outcome == .unanswered && pure) },
                        "seq \(entry.seq): \(entry.facts.attempts)")
            }
            // The kills were failed over on the address list, and each failed attempt is audited.
            let listEntries = entries.filter { $0.facts.destination == "server:tier-list" }
            for dead in addresses.prefix(2) {
                #expect(listEntries.contains { $0.facts.attempts.contains { $0.address == dead && $0.outcome != .answered } },
                        "a run's entry shows the killed replica \(dead) failing")
            }
            #expect(listEntries.contains { $0.facts.attempts.last?.address == addresses[2] }, "runs went on on the third replica")
            // Not doubled: the service saw one request per run that ran (a run lost with its
            // replica may or may not have reached it before the kill).
            let requests = try await WeatherRequests.count(platform) - before
            let succeeded = runs.filter { $0.succeeded && !$0.pure }.count
            #expect(requests >= succeeded && requests <= succeeded + failed.count,
                    "\(requests) weather requests for \(succeeded) runs that succeeded and \(failed.count) that may have run")
            #expect(try host.audit.verify() == .intact(entries: try #require(host.audit.entries().last?.seq)))

            // The restarted replica is used again by the address list once its back-off is over.
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(45)
            var recovered = false
            while clock.now < deadline, !recovered {
                let result = try await host.run(request("tier-list"))
                recovered = result.auditEntry.facts.attempts.last == ServerAttempt(address: addresses[0], outcome: .answered)
                if !recovered { try await Task.sleep(for: .milliseconds(500)) }
            }
            #expect(recovered, "replica 1 serves the host again after its restart")
            let states = try host.servers.states(of: "tier-list")
            #expect(states[0].failures == 0, "a working address is shown as working: \(states[0])")
        }
    }

    /// The runs the load made so far.
    final class Load: Sendable {
        private let driven = Mutex<[Driven]>([])

        private let kills = Mutex<[ContinuousClock.Instant]>([])
        private let began = ContinuousClock.now

        func add(_ run: Driven) { driven.withLock { $0.append(run) } }
        func killed(at instant: ContinuousClock.Instant) { kills.withLock { $0.append(instant) } }
        var count: Int { driven.withLock { $0.count } }
        var runs: [Driven] { driven.withLock { $0 } }

        /// The figures docs/PERFORMANCE.md records: throughput, latency percentiles over the whole
        /// load (both kills in it), and per kill and path the time to the first run that succeeded
        /// after the kill.
        func summary(entries: [AuditEntry]) -> String {
            let runs = self.runs
            let seconds = { (duration: Duration) in Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
            let latencies = runs.map { seconds($0.finished - $0.started) * 1000 }.sorted()
            let percentile = { (p: Double) in latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
            let end = runs.map(\.finished).max() ?? began
            var text = String(format: "tier: %d runs in %.2f s (%.0f runs/s), %d failed; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                              runs.count, seconds(end - began), Double(runs.count) / seconds(end - began),
                              runs.filter { !$0.succeeded }.count, percentile(0.5), percentile(0.99), latencies.last ?? 0)
            text += String(format: "; runs with more than one attempt: %d", entries.filter { $0.facts.attempts.count > 1 }.count)
            for (number, kill) in kills.withLock({ $0 }).enumerated() {
                for server in ["tier-list", "tier-lb"] {
                    let next = runs.filter { $0.server == server && $0.succeeded && $0.finished > kill }.map(\.finished).min()
                    text += String(format: "; kill %d → first success on %@: %.1f ms", number + 1, server,
                                   next.map { seconds($0 - kill) * 1000 } ?? -1)
                }
            }
            return text
        }
    }

    /// The replicas by index, killed and replaced as the test goes.
    final class Replicas: Sendable {
        private let servers = Mutex<[Int: ComputeServerProcess]>([:])

        func set(_ index: Int, _ server: ComputeServerProcess) {
            let previous = servers.withLock { servers -> ComputeServerProcess? in
                defer { servers[index] = server }
                return servers[index]
            }
            previous?.kill()
        }

        func kill(_ index: Int) {
            servers.withLock { $0[index] }?.kill()
        }

        func killAll() {
            for server in servers.withLock({ Array($0.values) }) { server.kill() }
        }
    }

    /// The weather requests the platform service has answered so far (`GET /stats`).
    enum WeatherRequests {
        struct Stats: Decodable {
            let requests: [String: Int]
        }

        static func count(_ platform: PlatformServiceProcess) async throws -> Int {
            let response = try await HTTPNetworkClient().send(NetworkRequest(url: "\(platform.baseURL)/stats"))
            guard response.status == 200 else { throw FixtureError("GET /stats answered \(response.status)") }
            return try JSONDecoder().decode(Stats.self, from: Data(response.body)).requests["/weather", default: 0]
        }
    }
}
