import EscrowCore
@testable import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// A compute server with several addresses: a call that was not delivered goes to the next one,
/// a call that was is never sent again, a failed address is skipped for a while, and every
/// attempt is in the run's audit entry. Real `escrow-compute` processes on 127.0.0.1.
@Suite(.serialized) struct ServerFailoverTests {
    let logger = Logger(label: "test")
    static let contactsSQL = "SELECT givenName, familyName, phoneNumbers FROM Contact"
    /// Nothing listens on port 1 of the loopback: a connection there is refused at once.
    static let deadAddress = "127.0.0.1:1"

    func register(_ host: EscrowHost, _ addresses: [String], _ certificates: DevCertificates) throws {
        try host.servers.add(id: "tier", addresses: addresses, caFile: certificates.path("ca.pem"), serverName: "compute-1",
                             clientCertificate: certificates.path("client.pem"), clientKey: certificates.path("client-key.pem"))
    }

    func run(_ host: EscrowHost) async throws -> RunResult {
        try await host.runApproving(app: "org.signal", purpose: "contact discovery", access: Self.contactsSQL,
                                    compute: "contacts.tuples", on: .server("tier"))
    }

    @Test func anAddressThatRefusesIsSkippedForItsBackOffAndTriedAgainAfter() async throws {
        try await ComputeServerProcess.with { server, certificates in
            try await TemporaryHome.with { temporary in
                try temporary.seed()
                let clock = SettableClock(secondsSince1970: 1_800_000_000)
                let host = try EscrowHost(home: temporary.home, clock: clock, logger: logger)
                try register(host, [Self.deadAddress, server.address], certificates)
                host.startServerAddresses(at: 0)

                let first = try await run(host)
                #expect(first.output.rowCount > 0)
                #expect(first.auditEntry.facts.attempts.map(\.address) == [Self.deadAddress, server.address])
                #expect(first.auditEntry.facts.attempts.map(\.outcome) == [.unreachable, .answered])
                #expect(first.auditEntry.facts.attempts[0].error?.contains("127.0.0.1:1") == true)
                let dead = try #require(try host.servers.states(of: "tier").first)
                #expect(dead.failures == 1 && dead.isBackingOff(at: clock.secondsSince1970))
                #expect(try host.servers.states(of: "tier")[1].failures == 0)

                // Within the back-off the dead address is not tried at all.
                let second = try await run(host)
                #expect(second.auditEntry.facts.attempts == [ServerAttempt(address: server.address, outcome: .answered)])

                // After it, it is tried first again; one more failure doubles the back-off.
                clock.advance(by: .seconds(2))
                let third = try await run(host)
                #expect(third.auditEntry.facts.attempts.map(\.outcome) == [.unreachable, .answered])
                let again = try #require(try host.servers.states(of: "tier").first)
                #expect(again.failures == 2)
                #expect(again.retryAt == clock.secondsSince1970 + ServerAddressState.backOff(afterFailures: 2))
                #expect(try host.audit.verify() == .intact(entries: 4))
            }
        }
    }

    @Test func whenEveryAddressFailsTheRunFailsNamingTheLastAndEveryAttemptIsAudited() async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            try register(host, [Self.deadAddress, "127.0.0.1:2"], certificates)
            host.startServerAddresses(at: 0)
            await #expect(throws: (any Error).self) { try await run(host) }
            let entry = try #require(try host.audit.entries().last)
            #expect(entry.facts.outcome == .failed)
            #expect(entry.facts.reason?.contains("127.0.0.1:2") == true, "the last address's error: \(entry.facts.reason ?? "")")
            #expect(entry.facts.attempts.map(\.address) == [Self.deadAddress, "127.0.0.1:2"])
            #expect(entry.facts.attempts.allSatisfy { $0.outcome == .unreachable })
            // Both are in back-off now, and still both are tried (the one skipped the shortest first).
            await #expect(throws: (any Error).self) { try await run(host) }
            #expect(try host.audit.entries().last?.facts.attempts.count == 2)
        }
    }

    /// Kills the first of two servers while a call is on its way to it (frozen first, so the
    /// call is certainly written and certainly unanswered), and returns that run's outcome.
    func killMidCall(_ request: DataflowRequest, certificates: DevCertificates, extraArguments: [String] = [],
                     home: TemporaryHome) async throws -> (result: Result<RunResult, any Error>, next: RunResult, host: EscrowHost,
                                                           first: String, second: String) {
        let first = try await ComputeServerProcess.start(certificates: certificates, extraArguments: extraArguments)
        defer { first.kill() }
        let second = try await ComputeServerProcess.start(certificates: certificates, extraArguments: extraArguments)
        defer { second.kill() }
        let host = try EscrowHost(home: home.home, remoteDeadline: .seconds(60), logger: logger)
        try register(host, [first.address, second.address], certificates)
        host.startServerAddresses(at: 0)
        _ = try await host.runApproving(request)
        #expect(try host.audit.entries().last?.facts.attempts == [ServerAttempt(address: first.address, outcome: .answered)])
        first.freeze()
        let pending = Task { try await host.run(request) }
        try await Task.sleep(for: .seconds(1))
        first.kill()
        let result = await pending.result
        return (result, try await host.run(request), host, first.address, second.address)
    }

    @Test func aDeliveredCallOfAFunctionThatContactsAServiceIsNeverSentAgain() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let request = DataflowRequest(app: "org.example.weather", purpose: "Weather", access: NetworkComputeTests.lastLocation,
                                          compute: "weather.current", destination: .server("tier"),
                                          parameters: ComputeParameters(["service": platform.baseURL]))
            let (result, next, host, first, second) = try await killMidCall(request, certificates: certificates, home: temporary)
            #expect(throws: (any Error).self) { try result.get() }
            let lost = try #require(try host.audit.entries().dropLast().last)
            #expect(lost.facts.outcome == .failed)
            #expect(lost.facts.attempts.map(\.outcome) == [.unanswered], "sent once, to the first server only")
            #expect(lost.facts.attempts.first?.address == first)
            // The next run goes to the second address, skipping the dead one.
            #expect(next.auditEntry.facts.attempts == [ServerAttempt(address: second, outcome: .answered)])
            #expect(try host.audit.verify() == .intact(entries: 4))
        }
    }

    @Test func aDeliveredCallOfAFunctionThatContactsNothingIsSentToTheNextAddress() async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let request = DataflowRequest(app: "org.signal", purpose: "contact discovery", access: Self.contactsSQL,
                                          compute: "contacts.tuples", destination: .server("tier"))
            let (result, next, host, first, second) = try await killMidCall(request, certificates: certificates, home: temporary)
            #expect(try result.get().output.rowCount > 0)
            let resent = try #require(try host.audit.entries().dropLast().last)
            #expect(resent.facts.outcome == .ok)
            #expect(resent.facts.attempts.map(\.address) == [first, second])
            #expect(resent.facts.attempts.map(\.outcome) == [.unanswered, .answered])
            #expect(next.auditEntry.facts.attempts == [ServerAttempt(address: second, outcome: .answered)])
        }
    }

    @Test func aServerRemovedWhileItsConnectionIsOpenGetsNoMoreData() async throws {
        try await ComputeServerProcess.with { server, certificates in
            try await TemporaryHome.with { temporary in
                try temporary.seed()
                let host = try EscrowHost(home: temporary.home, logger: logger)
                try register(host, [server.address], certificates)
                _ = try await run(host)
                try host.servers.remove("tier")
                await #expect(throws: ServerError.unknownServer("tier")) { try await run(host) }
                let entry = try #require(try host.audit.entries().last)
                #expect(entry.facts.outcome == .failed && entry.facts.attempts.isEmpty && entry.facts.bytesSent == 0)
            }
        }
    }

    @Test func theAttemptsAreCoveredByTheEntrysHash() async throws {
        try await ComputeServerProcess.with { server, certificates in
            try await TemporaryHome.with { temporary in
                try temporary.seed()
                let host = try EscrowHost(home: temporary.home, logger: logger)
                try register(host, [Self.deadAddress, server.address], certificates)
                host.startServerAddresses(at: 0)
                let result = try await run(host)
                let seq = result.auditEntry.seq
                #expect(try host.audit.verify() == .intact(entries: seq))
                // Hiding the failed attempt breaks the chain at that entry.
                try host.audit.state.write { database in
                    try database.execute("DROP TRIGGER IF EXISTS AuditEntry_append_only_update")
                    try database.prepare("UPDATE AuditEntry SET attempts = ? WHERE seq = ?")
                        .run([.text(#"[{"address":"\#(server.address)","outcome":"answered"}]"#), .integer(Int64(seq))])
                }
                #expect(try host.audit.verify() == .broken(seq: seq, reason: "its contents were altered after it was written"))
                try host.audit.state.write { database in
                    try database.prepare("UPDATE AuditEntry SET attempts = ? WHERE seq = ?").run([.text("[1]"), .integer(Int64(seq))])
                }
                guard case .broken(seq, let reason) = try host.audit.verify() else {
                    Issue.record("an unreadable attempts value must break the chain")
                    return
                }
                #expect(reason.contains("attempts"))
            }
        }
    }
}
