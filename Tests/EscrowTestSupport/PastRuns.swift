import EscrowCore
import EscrowHost
import EscrowStore
import Foundation
import Logging

/// Runs dataflows on an existing escrow home as if it were days ago: through the host, with its
/// clock set back, so the audit entries and the requests recorded with them carry old times. For
/// tests of retention through the `escrow` binary, which reads the system clock: the entries
/// are real runs' entries, written by the escrow's own code, only earlier.
public enum PastRuns {
    /// Runs `request` `times` times at `daysAgo` days before now (approving its flow, always, when
    /// it is new), a second apart.
    ///
    /// - Parameters:
    ///   - request: the dataflow; the same request run later through `escrow run` is the same flow.
    ///   - times: how many runs (a new flow's first attempt, pending, adds one entry more).
    ///   - daysAgo: how long ago, in days.
    ///   - home: an escrow home made with `escrow init`.
    /// - Returns: each run's audit entry number and how many requests were recorded with it.
    /// - Throws: what the host throws when it cannot open the home or a run fails.
    @discardableResult
    public static func run(_ request: DataflowRequest, times: Int, daysAgo: Double,
                           home: URL) async throws -> [(seq: Int, requests: Int)] {
        let clock = SettableClock(secondsSince1970: Date().timeIntervalSince1970 - daysAgo * 86_400)
        let host = try EscrowHost(home: EscrowHome(url: home), clock: clock, logger: Logger(label: "escrow.tests.past-runs"))
        var entries: [(seq: Int, requests: Int)] = []
        for _ in 0..<times {
            let entry = try await host.runApproving(request).auditEntry
            entries.append((entry.seq, entry.facts.egress.count))
            clock.advance(by: .seconds(1))
        }
        return entries
    }
}
