import EscrowCore
import EscrowDaemon
import EscrowHost
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// The retention setting holds while the daemon runs for days: it deletes old audit entries on
/// its own, and the log still verifies.
@Suite struct DaemonRetentionTests {
    let logger = Logger(label: "test")

    @Test func theRunningDaemonDeletesEntriesOlderThanTheRetentionAndTheLogStillVerifies() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let clock = try SettableClock(at: "2026-11-01T09:00:00.000Z")
            let host = try EscrowHost(home: temporary.home, clock: clock, logger: logger)
            for _ in 0..<3 {
                _ = try await host.runApproving(app: "a.b", purpose: "p", access: "SELECT givenName FROM Contact", compute: "identity")
            }
            #expect(try host.audit.verify() == .intact(entries: 4))
            let daemon = try HostDaemon(host: host, retentionInterval: .milliseconds(50), logger: logger)
            try await daemon.start()
            do {
                try host.flows.state.setSetting(AuditRetention.settingName, to: "7")
                clock.advance(by: .seconds(3 * 86_400))
                _ = try await host.runApproving(app: "a.b", purpose: "p", access: "SELECT givenName FROM Contact", compute: "identity")
                // Ten days after the first four entries, three after the fifth: the daemon deletes
                // the four without being asked.
                clock.advance(by: .seconds(7 * 86_400))
                let deadline = ContinuousClock.now + .seconds(30)
                while try host.audit.checkpoint() == nil, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(try host.audit.checkpoint()?.seq == 4)
                #expect(try host.audit.entries().map(\.seq) == [5])
                #expect(try host.audit.verify() == .intact(entries: 1))
                _ = try await host.runApproving(app: "a.b", purpose: "p", access: "SELECT givenName FROM Contact", compute: "identity")
                #expect(try host.audit.verify() == .intact(entries: 2))
            } catch {
                await daemon.shutdown()
                throw error
            }
            await daemon.shutdown()
        }
    }
}
