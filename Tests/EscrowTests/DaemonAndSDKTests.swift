import Escrow
import EscrowCore
import EscrowDaemon
import EscrowEmbedded
import EscrowFunctions
import EscrowHost
import EscrowWire
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// Apps through the SDK, against the real daemon on a Unix socket (and the embedded escrow).
@Suite struct DaemonAndSDKTests {
    let logger = Logger(label: "test")
    static let lastLocation = "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1"

    /// A seeded home with a running daemon (with `limits`: by default those for a loaded test
    /// machine, `.forTests`); stopped and removed afterwards.
    func withDaemon(limits: ConnectionLimits = .forTests,
                    _ body: (TemporaryHome, HostDaemon) async throws -> Void) async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let daemon = try HostDaemon(host: try EscrowHost(home: temporary.home, logger: logger), limits: limits, logger: logger)
            try await daemon.start()
            do {
                try await body(temporary, daemon)
            } catch {
                await daemon.shutdown()
                throw error
            }
            await daemon.shutdown()
        }
    }

    @Test func pendingThenApprovedThenTypedOutputWithTheCallerAudited() async throws {
        try await withDaemon { _, daemon in
            let escrow = try await Escrow.connect(app: "org.example.weather", socket: daemon.socketPath)
            defer { Task { await escrow.close() } }
            var pending: String?
            do throws(EscrowError) {
                _ = try await escrow.run(access: Self.lastLocation, compute: LocationRegion.self, purpose: "Weather where you are")
                Issue.record("the first run must await approval")
            } catch {
                guard case .awaitingApproval(let flow) = error else { throw error }
                #expect(error.approvalCommand == "escrow approve \(flow)")
                pending = flow
            }
            let flow = try #require(pending)
            try daemon.host.flows.approve(flow, .always)
            let region = try await escrow.run(access: Self.lastLocation, compute: LocationRegion.self, purpose: "Weather where you are")
            #expect(region.columnNames.contains("centerLatitude"))
            #expect(!region.columnNames.contains("latitude"), "the data read never reaches the app")
            let entry = try #require(try daemon.host.audit.entries().last)
            #expect(entry.facts.outcome == .ok)
            #expect(entry.facts.caller?.hasPrefix("uid \(getuid()) pid \(getpid())") == true)
            #expect(try daemon.host.audit.verify() == .intact(entries: 2))
        }
    }

    @Test func theSocketIsPrivateAndASecondDaemonIsRefused() async throws {
        try await withDaemon { temporary, daemon in
            let mode = try FileManager.default.attributesOfItem(atPath: daemon.socketPath)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600)
            #expect {
                try HostDaemon(host: try EscrowHost(home: temporary.home, logger: logger), logger: logger)
            } throws: { error in
                guard case .alreadyRunning? = error as? DaemonError else { return false }
                return true
            }
        }
    }

    @Test func anAppCanWaitForTheDecision() async throws {
        try await withDaemon { _, daemon in
            let escrow = try await Escrow.connect(app: "org.example.weather", socket: daemon.socketPath)
            defer { Task { await escrow.close() } }
            let host = daemon.host
            let approver = Task {
                // The individual approves the new flow a moment after the app asked.
                for _ in 0..<100 {
                    if let flow = try host.flows.list(status: .pending).first {
                        try host.flows.approve(flow.id, .once)
                        return
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            let region = try await escrow.run(access: Self.lastLocation, compute: LocationRegion.self, purpose: "Weather",
                                              waitForApproval: .seconds(20))
            try await approver.value
            #expect(region.rowCount == 1)
        }
    }

    @Test func deniedAndInvalidRunsAreTypedErrors() async throws {
        try await withDaemon { _, daemon in
            let escrow = try await Escrow.connect(app: "org.example.sneaky", socket: daemon.socketPath)
            defer { Task { await escrow.close() } }
            await #expect(throws: EscrowError.self) {
                try await escrow.runFrame(access: "DELETE FROM Contact", compute: "identity", purpose: "p")
            }
            do throws(EscrowError) {
                _ = try await escrow.runFrame(access: "SELECT 1 AS one", compute: "weather.magic", purpose: "p")
            } catch {
                guard case .unknownFunction = error else { throw error }
            }
            do throws(EscrowError) {
                _ = try await escrow.runFrame(access: "DELETE FROM Contact", compute: "identity", purpose: "p")
            } catch {
                guard case .invalidAccess(let reason) = error else { throw error }
                #expect(reason.contains("DELETE"))
            }
            var flow = ""
            do throws(EscrowError) {
                _ = try await escrow.runFrame(access: Self.lastLocation, compute: "identity", purpose: "raw location")
            } catch {
                guard case .awaitingApproval(let id) = error else { throw error }
                flow = id
            }
            try daemon.host.flows.deny(flow, reason: "no raw location")
            do throws(EscrowError) {
                _ = try await escrow.runFrame(access: Self.lastLocation, compute: "identity", purpose: "raw location")
                Issue.record("a denied flow ran")
            } catch {
                guard case .denied(let id, let reason) = error else { throw error }
                #expect(id == flow)
                #expect(reason.contains("no raw location"))
            }
        }
    }

    @Test func thirtyTwoAppsAtOnceLoseNoAuditEntry() async throws {
        try await withDaemon { _, daemon in
            // Approve the flow of each app first (one pending run each).
            for index in 0..<32 {
                let escrow = try await Escrow.connect(app: "org.example.app\(index)", socket: daemon.socketPath)
                do throws(EscrowError) {
                    _ = try await escrow.runFrame(access: "SELECT givenName FROM Contact", compute: "identity", purpose: "list")
                } catch {
                    guard case .awaitingApproval(let flow) = error else { throw error }
                    try daemon.host.flows.approve(flow, .always)
                }
                await escrow.close()
            }
            let socket = daemon.socketPath
            let rows = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<32 {
                    group.addTask {
                        let escrow = try await Escrow.connect(app: "org.example.app\(index)", socket: socket)
                        var total = 0
                        for _ in 0..<5 {
                            total += try await escrow.runFrame(access: "SELECT givenName FROM Contact", compute: "identity", purpose: "list").rowCount
                        }
                        await escrow.close()
                        return total
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(rows == 32 * 5 * 3)
            #expect(try daemon.host.audit.verify() == .intact(entries: 32 + 32 * 5))
            #expect(try daemon.host.audit.entries(AuditFilter(outcome: .ok)).count == 160)
        }
    }

    @Test func anAppRunsAgainAfterTheDaemonClosedItsIdleConnection() async throws {
        // Deadlines long enough for a loaded machine to connect and send in time, short enough to wait for.
        try await withDaemon(limits: ConnectionLimits(firstRequestTimeout: .seconds(12), idleTimeout: .seconds(5))) { _, daemon in
            let escrow = try await Escrow.connect(app: "org.example.patient", socket: daemon.socketPath)
            defer { Task { await escrow.close() } }
            // Connected, then silent: the daemon closes the connection after its first-request timeout.
            try await Self.waitUntilNoConnection(daemon)
            do throws(EscrowError) {
                _ = try await escrow.runFrame(access: "SELECT givenName FROM Contact", compute: "identity", purpose: "list")
                Issue.record("the first run must await approval")
            } catch {
                guard case .awaitingApproval(let flow) = error else { throw error }
                try daemon.host.flows.approve(flow, .always)
            }
            // Idle after a run: closed again, and the next run connects again.
            try await Self.waitUntilNoConnection(daemon)
            let frame = try await escrow.runFrame(access: "SELECT givenName FROM Contact", compute: "identity", purpose: "list")
            #expect(frame.rowCount == 3)
        }
    }

    /// Waits (up to 20 s) until the daemon has no app connection open.
    private static func waitUntilNoConnection(_ daemon: HostDaemon) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while daemon.openConnections > 0, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(daemon.openConnections == 0, "the daemon did not close the idle connection")
    }

    /// The host's errors reach an app in plain words: what happened, without the `escrow`
    /// commands the CLI adds for the individual (an app's user may have no such command).
    @Test func anAppIsToldWhatHappenedWithoutCLICommands() async throws {
        try await withDaemon { _, daemon in
            let escrow = try await Escrow.connect(app: "org.example.weather", socket: daemon.socketPath)
            defer { Task { await escrow.close() } }
            await #expect(throws: EscrowError.serverUnavailable("unknown compute server 'compute-9'")) {
                try await escrow.runFrame(access: Self.lastLocation, compute: "location.region", on: .server("compute-9"), purpose: "p")
            }
            await #expect(throws: EscrowError.invalidAccess(
                "access SQL is not valid: no such column: secret (at byte 7); Schemas/data lists the columns of each table (docs/ACCESS.md)")) {
                try await escrow.runFrame(access: "SELECT secret FROM Contact", compute: "identity", purpose: "p")
            }
            // The daemon's own message for a pending flow is plain too; the SDK's error names the
            // approval command (the SDK is a boundary), as before.
            var flow = ""
            do throws(EscrowError) {
                _ = try await escrow.runFrame(access: Self.lastLocation, compute: "location.region", purpose: "p")
            } catch {
                guard case .awaitingApproval(let id) = error else { throw error }
                flow = id
                #expect(error.approvalCommand == "escrow approve \(id)")
            }
            let failure = AppFailure(hostError: DecisionError.awaitingApproval(flow: flow))
            #expect(failure.message == "dataflow \(flow) is awaiting approval")
        }
    }

    @Test func theEmbeddedEscrowSaysHowToCreateAMissingHome() {
        let missing = URL(fileURLWithPath: "/tmp/escrow-missing-\(UUID().uuidString)")
        #expect(throws: EscrowError.daemonUnavailable(
            "\(missing.path): \(missing.path) is not an escrow home; create it with `escrow --home \(missing.path) init`")) {
            try Escrow.embedded(home: missing, app: "org.example.contacts")
        }
    }

    @Test func noDaemonIsAClearError() async throws {
        await #expect(throws: EscrowError.self) {
            try await Escrow.connect(app: "a.b", socket: "/tmp/escrow-no-such-\(UUID().uuidString).sock")
        }
    }

    @Test func theEmbeddedEscrowRunsTheSamePipeline() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let escrow = try Escrow.embedded(home: temporary.url, app: "org.example.contacts")
            var flow = ""
            do throws(EscrowError) {
                _ = try await escrow.run(access: "SELECT givenName, familyName, phoneNumbers FROM Contact",
                                         compute: ContactsTuples.self, purpose: "Find friends")
            } catch {
                guard case .awaitingApproval(let id) = error else { throw error }
                flow = id
            }
            let host = try EscrowHost(home: temporary.home, logger: logger)
            try host.flows.approve(flow, .always)
            let tuples = try await escrow.run(access: "SELECT givenName, familyName, phoneNumbers FROM Contact",
                                              compute: ContactsTuples.self, purpose: "Find friends")
            #expect(tuples.rowCount == 3)
        }
    }
}
