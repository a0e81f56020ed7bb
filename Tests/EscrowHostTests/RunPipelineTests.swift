import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// run(): guard → access → compute, returning only compute's output.
@Suite struct RunPipelineTests {
    let logger = Logger(label: "test")

    @Test func contactsFlowOfThePaper() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let result = try await host.runApproving(app: "org.example.contacts", purpose: "Find friends",
                                            access: "SELECT givenName, familyName, phoneNumbers FROM Contact",
                                            compute: "contacts.tuples")
            #expect(result.output.columnNames == ["givenName", "familyName", "phoneNumber"])
            #expect(result.output.rowCount == 3, "Ada has two numbers, Alan one, Grace none")
            #expect(result.rowsRead == 3)
            #expect(result.flow.lineage.sorted.map(\.description) == ["Contact.familyName", "Contact.givenName", "Contact.phoneNumbers"])
            #expect(result.flow.function.id == "contacts.tuples")
            #expect(result.flow.function.codeDigest == ContactsTuples.codeDigest)
        }
    }

    @Test func locationFlowOfThePaperGivesARegionNotThePoint() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let result = try await host.runApproving(app: "org.wikipedia", purpose: "Articles near you",
                                            access: "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
                                            compute: "location.region", parameters: ComputeParameters(["radius": "1000"]))
            let output = result.output
            #expect(!output.columnNames.contains("latitude"))
            #expect(!output.columnNames.contains("longitude"))
            // The latest seeded fix is 41.7886, -87.5987.
            let south = try #require(try output.column("south").double(at: 0))
            let north = try #require(try output.column("north").double(at: 0))
            #expect(south <= 41.7886 && 41.7886 < north)
            let center = try #require(try output.column("centerLatitude").double(at: 0))
            #expect(center != 41.7886)
        }
    }

    @Test func photosFlowResolvesAssetsToTheirBytes() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let result = try await host.runApproving(app: "org.example.gallery", purpose: "Show pictures",
                                            access: "SELECT asset FROM Photos WHERE mediaType = 'image' ORDER BY creationDate DESC",
                                            compute: "identity")
            let assets = try result.output.column("asset")
            #expect(assets.type == .bytes)
            #expect(result.output.rowCount == 3)
            // Newest image first: seeded photo 2 is the PNG of February.
            #expect(assets.bytes(at: 0) == Array("photo 2 png".utf8))
            #expect(result.bytesToCompute == result.output.payloadByteCount)
        }
    }

    @Test func photosSummaryFlow() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let result = try await host.runApproving(app: "org.example.gallery", purpose: "Timeline",
                                            access: "SELECT mediaType, creationDate FROM Photos", compute: "photos.summary")
            #expect(result.output.rowCount == 4)
            #expect(try result.output.column("count").int64(at: 0) == 2)
        }
    }

    @Test func missingAssetFileIsAClearError() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            try FileManager.default.removeItem(at: temporary.home.assetsURL)
            let host = try EscrowHost(home: temporary.home, logger: logger)
            await #expect {
                try await host.runApproving(app: "a.b", purpose: "p", access: "SELECT asset FROM Photos", compute: "identity")
            } throws: { error in
                "\(error)".contains("re-import the photo folder")
            }
        }
    }

    @Test func inputThatDoesNotMatchTheFunctionIsRefusedBeforeItRuns() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            await #expect(throws: RunError.inputMismatch(function: "location.region", expects: "latitude (double|int64), longitude (double|int64)",
                                                         problem: .missingColumn("latitude", available: ["givenName"]))) {
                try await host.runApproving(app: "a.b", purpose: "p", access: "SELECT givenName FROM Contact", compute: "location.region")
            }
            await #expect(throws: RunError.inputMismatch(function: "location.region", expects: "latitude (double|int64), longitude (double|int64)",
                                                         problem: .wrongType(column: "latitude", expected: [.double, .int64], actual: .string))) {
                try await host.runApproving(app: "a.b", purpose: "p", access: "SELECT givenName AS latitude, 1.0 AS longitude FROM Contact",
                                   compute: "location.region")
            }
        }
    }

    /// A function's own error, as it threw it.
    struct OutOfTea: Error, Equatable, CustomStringConvertible {
        let cups: Int
        var description: String { "out of tea after \(cups) cups" }
    }

    struct ThrowingFunction: ComputeFunction {
        static let id = "test.throws"
        static let version = 1
        static let summary = "Always fails."
        static let inputs = InputContract.any
        static let codeDigest = String(repeating: "d", count: 64)
        func compute(_ input: Frame, context: ComputeContext) throws -> Frame { throw OutOfTea(cups: 3) }
    }

    /// compute()'s error reaches the caller as the function threw it (not flattened into text);
    /// the app is told its description, and the audit log records it.
    @Test func aFunctionsOwnErrorIsCarriedToTheCaller() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, catalog: FunctionCatalog([RegisteredFunction(ThrowingFunction.self)]),
                                      logger: logger)
            let error = try await #require(throws: RunError.self) {
                try await host.runApproving(app: "a.b", purpose: "p", access: "SELECT givenName FROM Contact", compute: "test.throws")
            }
            guard case .computeFailed(let function, let underlying) = error else {
                Issue.record("expected computeFailed, got \(error)")
                return
            }
            #expect(function == "test.throws")
            #expect(underlying as? OutOfTea == OutOfTea(cups: 3))
            #expect(error.description == "compute function test.throws failed: out of tea after 3 cups")
            #expect(error == .computeFailed(function: "test.throws", underlying: OutOfTea(cups: 3)))
            #expect(error != .computeFailed(function: "test.throws", underlying: OutOfTea(cups: 4)))
            #expect(error != .computeFailed(function: "test.other", underlying: OutOfTea(cups: 3)))
            let failure = AppFailure(hostError: error)
            #expect(failure.kind == .functionFailed)
            #expect(failure.message == "compute function test.throws failed: out of tea after 3 cups")
            #expect(try host.audit.entries().last?.facts.reason == "compute function test.throws failed: out of tea after 3 cups")
        }
    }

    @Test func failingFunctionIsReportedAsSuch() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            await #expect {
                try await host.runApproving(app: "a.b", purpose: "p",
                                   access: "SELECT givenName, familyName, 'not json' AS phoneNumbers FROM Contact",
                                   compute: "contacts.tuples")
            } throws: { error in
                guard case .computeFailed(let function, _) = error as? RunError else { return false }
                return function == "contacts.tuples"
            }
        }
    }

    /// A value over the length limit fails the run (it used to come back as NULL with success),
    /// and the failed run is audited with the error's words.
    @Test func overLimitValueFailsTheRunAndIsAudited() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let error = AccessError.runningValueTooLarge(limit: AccessPolicy().maxValueBytes)
            await #expect(throws: error) {
                try await host.runApproving(app: "a.b", purpose: "p",
                                            access: "SELECT givenName, printf('%.*c', 1000000000, familyName) AS padded FROM Contact",
                                            compute: "identity")
            }
            let entry = try #require(try host.audit.entries().last)
            #expect(entry.facts.outcome == .failed)
            #expect(entry.facts.reason == error.description)
            #expect(entry.facts.reads == ["Contact.familyName", "Contact.givenName"])
        }
    }

    @Test func requestErrors() async throws {
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let sql = "SELECT latitude, longitude FROM Location"
            await #expect(throws: CatalogError.self) {
                try await host.runApproving(app: "a.b", purpose: "p", access: sql, compute: "weather.magic")
            }
            await #expect(throws: ServerError.unknownServer("compute-1")) {
                try await host.runApproving(app: "a.b", purpose: "p", access: sql, compute: "location.region", on: .server("compute-1"))
            }
            await #expect(throws: RequestTextError(.appID, " ", .notReverseDNS)) {
                try await host.runApproving(app: " ", purpose: "p", access: sql, compute: "location.region")
            }
            await #expect(throws: RequestTextError(.purpose, "", .empty)) {
                try await host.runApproving(app: "a.b", purpose: "", access: sql, compute: "location.region")
            }
            #expect(try host.flows.list().isEmpty, "a refused request records no flow")
        }
    }

    @Test func badParameterIsRefusedBeforeAnyDataIsRead() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            // The SQL would fail when run (budget), so reaching access would throw something else.
            var policy = AccessPolicy()
            policy.instructionBudget = 1000
            let strict = try EscrowHost(home: temporary.home, policy: policy, logger: logger)
            let sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS latitude, i AS longitude FROM n"
            await #expect(throws: ComputeError.invalidParameter(name: "radius", reason: "'abc' is not a number")) {
                try await strict.runApproving(app: "a.b", purpose: "p", access: sql, compute: "location.region",
                                     parameters: ComputeParameters(["radius": "abc"]))
            }
        }
    }

    @Test func concurrentRunsGetTheirOwnResults() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<32 {
                    group.addTask {
                        let sql = index.isMultiple(of: 2) ? "SELECT id FROM Contact" : "SELECT id FROM Location"
                        return try await host.runApproving(app: "a.b", purpose: "p", access: sql, compute: "identity").output.rowCount
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts.count == 32)
            #expect(counts.allSatisfy { $0 == 3 })
        }
    }

    @Test func runSeesDataImportedAfterTheHostOpened() async throws {
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let sql = "SELECT count(*) AS n FROM Location"
            #expect(try await host.runApproving(app: "a.b", purpose: "p", access: sql, compute: "identity").output.columns[0].int64(at: 0) == 0)
            try temporary.seed()
            #expect(try await host.runApproving(app: "a.b", purpose: "p", access: sql, compute: "identity").output.columns[0].int64(at: 0) == 3)
        }
    }
}
