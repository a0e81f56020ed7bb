import EscrowCore
import EscrowFunctions
@testable import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// A function registered under a fixed id whose code digest the test chooses: stands for the same
/// function before and after its code was edited.
struct EditedFunction: ComputeFunction {
    static let id = "test.count"
    static let version = 1
    static let summary = "Counts rows."
    static let inputs = InputContract.any
    static let codeDigest = String(repeating: "b", count: 64)
    func compute(_ input: Frame, context: ComputeContext) throws -> Frame {
        try Frame(columns: [Column(name: "rows", values: .int64([Int64(input.rowCount)]))])
    }
}

struct OriginalFunction: ComputeFunction {
    static let id = "test.count"
    static let version = 1
    static let summary = "Counts rows."
    static let inputs = InputContract.any
    static let codeDigest = String(repeating: "a", count: 64)
    func compute(_ input: Frame, context: ComputeContext) throws -> Frame {
        try Frame(columns: [Column(name: "rows", values: .int64([Int64(input.rowCount)]))])
    }
}

@Suite struct ApprovalTests {
    let logger = Logger(label: "test")
    static let base = DataflowRequest(app: "org.example.weather", purpose: "Show the weather",
                                      access: "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
                                      compute: "location.region", parameters: ComputeParameters(["radius": "1000"]))

    func pendingFlow(_ host: EscrowHost, _ request: DataflowRequest) async throws -> String {
        do {
            _ = try await host.run(request)
            Issue.record("expected the run to await approval")
            return ""
        } catch let DecisionError.awaitingApproval(flow) {
            return flow
        }
    }

    @Test func firstRunIsPendingAndAuditedThenApprovalLetsItRun() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            #expect(flow.count == 8)
            // Plain words for the app; the command to approve it is the CLI's to add (FlowCycleTests).
            #expect(DecisionError.awaitingApproval(flow: flow).description == "dataflow \(flow) is awaiting approval")
            let record = try host.flows.flow(flow)
            #expect(record.status == .pending)
            #expect(record.app == "org.example.weather")
            #expect(record.reads == ["Location.latitude", "Location.longitude", "Location.timestamp"])
            #expect(record.function.codeDigest == LocationRegion.codeDigest)
            #expect(record.parametersJSON == #"{"radius":"1000"}"#)

            try host.flows.approve(flow, .always)
            let result = try await host.run(Self.base)
            #expect(result.flowID == flow)
            #expect(result.output.rowCount == 1)

            let entries = try host.audit.entries()
            #expect(entries.map(\.facts.outcome) == [.pending, .ok])
            #expect(entries.allSatisfy { $0.facts.flowID == flow })
            #expect(entries[1].facts.outputSHA256 == FrameDigest.sha256(result.output))
            #expect(entries[1].facts.rowsRead == 1)
            #expect(entries[1].facts.reads == record.reads)
            #expect(entries[1].seq == result.auditEntry.seq)
            #expect(try host.audit.verify() == .intact(entries: 2))
        }
    }

    static let bypasses: [(String, DataflowRequest)] = {
        var changedSQL = base
        changedSQL.access = "SELECT longitude, latitude, altitude FROM Location ORDER BY timestamp DESC LIMIT 1"
        var changedCase = base
        changedCase.access = "select longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1"
        var changedLiteral = base
        changedLiteral.access = "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 2"
        var changedPurpose = base
        changedPurpose.purpose = "Show the weather and ads"
        var changedApp = base
        changedApp.app = "com.example.tracker"
        var changedParameters = base
        changedParameters.parameters = ComputeParameters(["radius": "100"])
        var changedFunction = base
        changedFunction.compute = "identity"
        changedFunction.parameters = ComputeParameters()
        return [
            ("changed SQL", changedSQL), ("changed keyword case", changedCase), ("changed literal", changedLiteral),
            ("changed purpose", changedPurpose), ("changed app", changedApp), ("changed parameters", changedParameters),
            ("changed function", changedFunction),
        ]
    }()

    @Test(arguments: ApprovalTests.bypasses)
    func anyChangeIsANewPendingFlow(name: String, changed: DataflowRequest) async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let approved = try await pendingFlow(host, Self.base)
            try host.flows.approve(approved, .always)
            _ = try await host.run(Self.base)
            let other = try await pendingFlow(host, changed)
            #expect(other != approved, "\(name) must not reuse the approval")
            #expect(try host.flows.flow(other).status == .pending)
            #expect(try host.flows.flow(approved).status == .approved)
        }
    }

    @Test func layoutAndCommentsDoNotMakeANewFlow() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            try host.flows.approve(flow, .always)
            var relaid = Self.base
            relaid.access = """
                -- the newest fix
                SELECT longitude,latitude
                  FROM   Location /* all of it */
                 ORDER BY timestamp DESC
                 LIMIT 1;
                """
            let result = try await host.run(relaid)
            #expect(result.flowID == flow)
            #expect(try host.flows.list().count == 1)
        }
    }

    @Test func editedFunctionCodeIsANewFlow() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let request = DataflowRequest(app: "a.b", purpose: "count", access: "SELECT id FROM Contact", compute: "test.count")
            let before = try EscrowHost(home: temporary.home, catalog: FunctionCatalog([RegisteredFunction(OriginalFunction.self)]), logger: logger)
            let original = try await pendingFlow(before, request)
            try before.flows.approve(original, .always)
            #expect(try await before.run(request).output.columns[0].int64(at: 0) == 3)

            let after = try EscrowHost(home: temporary.home, catalog: FunctionCatalog([RegisteredFunction(EditedFunction.self)]), logger: logger)
            let edited = try await pendingFlow(after, request)
            #expect(edited != original)
            #expect(try after.flows.flow(edited).function.codeDigest == EditedFunction.codeDigest)
        }
    }

    @Test func destinationIsPartOfTheFlow() {
        let function = FunctionDescriptor(id: "location.region", version: 1, codeDigest: LocationRegion.codeDigest, summary: "")
        var remote = Self.base
        remote.destination = .server("compute-1")
        var otherServer = Self.base
        otherServer.destination = .server("compute-2")
        let keys = [Self.base, remote, otherServer].map { FlowIdentity(request: $0, function: function).key }
        #expect(Set(keys).count == 3)
    }

    @Test func onceIsUsedByExactlyOneOfSixteenConcurrentRuns() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            try host.flows.approve(flow, .once)
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        do {
                            _ = try await host.run(Self.base)
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try host.flows.flow(flow).status == .pending)
            let audited = try host.audit.entries(AuditFilter(flow: flow))
            #expect(audited.filter { $0.facts.outcome == .ok }.count == 1)
            #expect(audited.filter { $0.facts.outcome == .pending }.count == 16)
            #expect(try host.audit.verify() == .intact(entries: 17))
        }
    }

    @Test func onceAcrossTwoHostsOnOneHomeIsStillOnce() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let first = try EscrowHost(home: temporary.home, logger: logger)
            let second = try EscrowHost(home: temporary.home, logger: logger)
            let flow = try await pendingFlow(first, Self.base)
            try first.flows.approve(flow, .once)
            async let a: Bool = (try? await first.run(Self.base)) != nil
            async let b: Bool = (try? await second.run(Self.base)) != nil
            let results = await [a, b]
            #expect(results.filter { $0 }.count == 1)
        }
    }

    @Test func revokeTakesEffectOnTheNextRun() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            try host.flows.approve(flow, .always)
            _ = try await host.run(Self.base)
            try host.flows.revoke(flow)
            await #expect(throws: DecisionError.revoked(flow: flow)) { try await host.run(Self.base) }
            #expect(try host.audit.entries().last?.facts.outcome == .revoked)
            #expect(throws: FlowError.notApproved(flow: flow, status: .revoked)) { try host.flows.revoke(flow) }
            try host.flows.approve(flow, .always)
            _ = try await host.run(Self.base)
        }
    }

    @Test func deniedRunsAreRefusedAndAudited() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            try host.flows.deny(flow, reason: "no location for weather")
            await #expect(throws: DecisionError.denied(flow: flow, reason: "no location for weather")) {
                try await host.run(Self.base)
            }
            let entries = try host.audit.entries(AuditFilter(outcome: .denied))
            #expect(entries.count == 1)
            #expect(entries[0].facts.rowsRead == 0)
            #expect(entries[0].facts.outputSHA256 == nil)
            #expect(try host.flows.history(flow).map(\.decision) == ["new: pending", "deny"])
        }
    }

    @Test func approvalUntilAPastDateIsRefusedAndAnExpiredOneTurnsPending() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let clock = try SettableClock(at: "2026-11-23T19:00:00Z")
            let host = try EscrowHost(home: temporary.home, clock: clock, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            #expect(throws: FlowError.approvalInThePast("2026-11-23T18:59:00.000Z")) {
                try host.flows.approve(flow, .until(clock.secondsSince1970 - 60))
            }
            try host.flows.approve(flow, .until(clock.secondsSince1970 + 3600))
            _ = try await host.run(Self.base)
            clock.advance(by: .milliseconds(3_599_999))
            _ = try await host.run(Self.base)
            #expect(try host.flows.flow(flow).status == .approved, "in force until the last millisecond")
            clock.advance(by: .milliseconds(1))
            await #expect(throws: DecisionError.awaitingApproval(flow: flow)) { try await host.run(Self.base) }
            #expect(try host.flows.flow(flow).status == .pending)
            let history = try host.flows.history(flow)
            #expect(history.map(\.decision) == ["new: pending", "approve until 2026-11-23T20:00:00.000Z", "expired"])
            #expect(history.last?.time == "2026-11-23T20:00:00.000Z", "expired at the approval's end, by the host's clock")
            #expect(try host.audit.entries().map(\.facts.outcome) == [.pending, .ok, .ok, .pending])
        }
    }

    @Test func anApprovalUntilNowIsInThePastAndOneSecondLaterIsNot() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let clock = try SettableClock(at: "2026-11-23T19:00:00Z")
            let host = try EscrowHost(home: temporary.home, clock: clock, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            #expect(throws: FlowError.approvalInThePast("2026-11-23T19:00:00.000Z")) {
                try host.flows.approve(flow, .until(clock.secondsSince1970))
            }
            #expect(try host.flows.flow(flow).status == .pending, "a refused approval changes nothing")
            let approved = try host.flows.approve(flow, .until(clock.secondsSince1970 + 1))
            #expect(approved.status == .approved)
            #expect(approved.approval == .until(clock.secondsSince1970 + 1))
            #expect(approved.decidedAt == "2026-11-23T19:00:00.000Z")
            _ = try await host.run(Self.base)
            clock.advance(by: .seconds(1))
            await #expect(throws: DecisionError.awaitingApproval(flow: flow)) { try await host.run(Self.base) }
        }
    }

    @Test func aOnceApprovalIsUsedByOneRunWhateverTheTime() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let clock = try SettableClock(at: "2026-11-23T19:00:00Z")
            let host = try EscrowHost(home: temporary.home, clock: clock, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            try host.flows.approve(flow, .once)
            clock.advance(by: .seconds(30 * 86_400))
            _ = try await host.run(Self.base)
            await #expect(throws: DecisionError.awaitingApproval(flow: flow)) { try await host.run(Self.base) }
            let history = try host.flows.history(flow)
            #expect(history.map(\.decision) == ["new: pending", "approve once", "once used"])
            #expect(history.map(\.time) == ["2026-11-23T19:00:00.000Z", "2026-11-23T19:00:00.000Z", "2026-12-23T19:00:00.000Z"])
        }
    }

    @Test func flowIDsResolveByPrefixAndUnknownOnesAreClear() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            #expect(try host.flows.flow(String(flow.prefix(4))).id == flow)
            #expect(throws: FlowError.unknownFlow("ffffffffzz")) { try host.flows.flow("ffffffffzz") }
            #expect(try host.flows.list(status: .pending).map(\.id) == [flow])
            #expect(try host.flows.list(status: .approved).isEmpty)
            #expect(try host.flows.list(app: "other.app").isEmpty)
        }
    }

    @Test func failedRunsAreAuditedToo() async throws {
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: logger)
            await #expect(throws: AccessError.self) {
                try await host.run(app: "a.b", purpose: "p", access: "DELETE FROM Contact", compute: "identity")
            }
            let entry = try #require(try host.audit.entries().last)
            #expect(entry.facts.outcome == .failed)
            #expect(entry.facts.flowID == nil)
            #expect(entry.facts.reason?.contains("DELETE") == true)
        }
    }

    @Test func whenTheAuditCannotBeWrittenTheAppGetsAnErrorNotTheData() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let flow = try await pendingFlow(host, Self.base)
            try host.flows.approve(flow, .always)
            let saboteur = try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
            try saboteur.execute("""
                CREATE TRIGGER full_disk BEFORE INSERT ON AuditEntry WHEN NEW.outcome = 'ok'
                BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END
                """)
            await #expect {
                try await host.run(Self.base)
            } throws: { error in
                // The storage failure is carried as the store reported it, SQLite's code included.
                guard let audit = error as? AuditError, let store = audit.underlying as? StoreError else { return false }
                return audit.description.contains("output was withheld") && store.code != nil
                    && store.message.contains("database or disk is full")
            }
        }
    }
}
