import EscrowDaemon
import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Testing

/// A decision is bound to the program that asks: the daemon reads the app's executable from its
/// process, another program claiming the same app id asks for a new flow, and an updated program
/// turns an approval back to pending, saying why.
@Suite struct WhoIsAskingTests {
    /// A copy of the weather example app at a path of its own, so the test can change it.
    static func copyOfWeatherApp(named name: String, in folder: URL) throws -> URL {
        let copy = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: try BuiltExecutable.url(named: "EscrowWeatherApp"), to: copy)
        return copy
    }

    /// `escrow flows show FLOW` of the home, as the individual would run it.
    static func flowsShow(_ flow: String, home: EscrowHome) async throws -> String {
        let outcome = try await ChildProcess.runOffPool(try BuiltExecutable.url(named: "escrow"),
                                                        ["--home", home.url.path, "flows", "show", flow])
        return outcome.output + outcome.errors
    }

    @Test func anotherProgramOrAnUpdatedOneCannotUseAnApproval() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-programs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let approvedApp = try Self.copyOfWeatherApp(named: "weather", in: folder)
        let otherApp = try Self.copyOfWeatherApp(named: "not-weather", in: folder)

        try await ExampleAppTests.withPlatformAndDaemon { platform, daemon in
            let arguments = ["--service", platform.baseURL, "--socket", daemon.socketPath]
            let flows = daemon.host.flows

            let first = try await ChildProcess.runOffPool(approvedApp, arguments)
            #expect(first.status == 2, "\(first.errors)")
            let flow = try #require(try flows.list(status: .pending).first)
            #expect(flow.programPath == approvedApp.path)
            #expect(flow.programDigest?.count == 64)
            try flows.approve(flow.id, .always)
            let approved = try await ChildProcess.runOffPool(approvedApp, arguments)
            #expect(approved.status == 0, "\(approved.errors)")
            let entry = try #require(try daemon.host.audit.entries().last)
            #expect(entry.facts.caller?.contains(", \(approvedApp.path) (SHA-256 \(flow.programDigest ?? "")") == true,
                    "the audit entry names the program: \(entry.facts.caller ?? "none")")

            // The same app id, purpose, SQL and parameters from another program: a new flow.
            let other = try await ChildProcess.runOffPool(otherApp, arguments)
            #expect(other.status == 2, "another program must not use the approval: \(other.output)")
            let pending = try flows.list(status: .pending)
            #expect(pending.count == 1)
            #expect(pending.first?.programPath == otherApp.path)
            #expect(pending.first?.app == flow.app)
            #expect(pending.first?.id != flow.id)
            let shownOther = try await Self.flowsShow(try #require(pending.first?.id), home: daemon.host.home)
            #expect(shownOther.contains("Which program asks\n  \(otherApp.path)\n  SHA-256 of its executable: "), "\(shownOther)")

            // The approved program changes on disk (an update, or a replacement): asked again.
            let handle = try FileHandle(forWritingTo: approvedApp)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("another build".utf8))
            try handle.close()
            let updated = try await ChildProcess.runOffPool(approvedApp, arguments)
            #expect(updated.status == 2, "the changed program must be approved again: \(updated.output)")
            let record = try flows.flow(flow.id)
            #expect(record.status == .pending)
            #expect(record.programDigest != flow.programDigest)
            let change = try #require(try flows.history(flow.id).last)
            #expect(change.decision == "program changed: pending")
            #expect(change.reason?.contains("the program at \(approvedApp.path) is another executable now") == true)

            let shownChanged = try await Self.flowsShow(flow.id, home: daemon.host.home)
            #expect(shownChanged.contains("it changed since your last decision"), "\(shownChanged)")
            #expect(shownChanged.contains("program changed: pending: the program at \(approvedApp.path) is another executable now"),
                    "\(shownChanged)")

            try flows.approve(flow.id, .always)
            let again = try await ChildProcess.runOffPool(approvedApp, arguments)
            #expect(again.status == 0, "approved for the new executable: \(again.errors)")
            #expect(try daemon.host.audit.verify() == .intact(entries: 5))
        }
    }
}
