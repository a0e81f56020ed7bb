import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Killing the process at any moment loses no entry of a run that returned data and leaves the
/// chain verifiable.
@Suite struct CrashSafetyTests {
    @Test func sigkillDuringAThousandAuditedRunsLosesNothing() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let logger = Logger(label: "test")
            let setup = try EscrowHost(home: temporary.home, logger: logger)
            _ = try await setup.runApproving(app: "org.example.crash", purpose: "crash test",
                                             access: "SELECT givenName, familyName, phoneNumbers FROM Contact",
                                             compute: "contacts.tuples")

            // Three rounds on the same home, killed after different numbers of returned runs.
            var returned: [(Int, String)] = []
            for threshold in [37, 300, 777] {
                returned += try killProbe(home: temporary.url, afterReturnedRuns: threshold)
            }

            let audit = try EscrowHost(home: temporary.home, logger: logger).audit
            guard case .intact(let count) = try audit.verify() else {
                Issue.record("the audit log does not verify after SIGKILL: \(try audit.verify())")
                return
            }
            #expect(count >= returned.count + 1)
            for (seq, sha) in returned {
                let entry = try #require(try audit.entry(seq), "run \(seq) returned data but has no audit entry")
                #expect(entry.facts.outcome == .ok)
                #expect(entry.facts.outputSHA256 == sha)
            }
        }
    }

    /// Starts the probe for 1000 runs, SIGKILLs it once `threshold` runs have returned, and gives
    /// back every run it reported as returned (audit seq, output SHA-256).
    func killProbe(home: URL, afterReturnedRuns threshold: Int) throws -> [(Int, String)] {
        let process = Process()
        process.executableURL = try BuiltExecutable.url(named: "EscrowCrashProbe")
        process.arguments = [home.path, "1000"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()

        let reader = output.fileHandleForReading
        var received = Data()
        let deadline = ContinuousClock.now + .seconds(120)
        while received.count(where: { $0 == 0x0A }) < threshold, ContinuousClock.now < deadline {
            let chunk = PipeRead.chunk(reader)
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        kill(process.processIdentifier, SIGKILL)
        received.append(PipeRead.toEnd(reader))
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the probe finished before it was killed")

        let returned = String(decoding: received, as: UTF8.self).split(separator: "\n").compactMap { line -> (Int, String)? in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let seq = Int(parts[0]) else { return nil }
            return (seq, String(parts[1]))
        }
        #expect(returned.count >= threshold)
        return returned
    }
}
