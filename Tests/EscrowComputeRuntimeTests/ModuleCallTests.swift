import EscrowCore
import EscrowModules
import EscrowTestSupport
import EscrowWire
import Foundation
import Testing
import WAT

/// Calls of compute modules on a real `escrow-compute` process, as an escrow host makes them: a
/// server asks for a module it does not have, runs it once sent and keeps it; it refuses bytes
/// that are another module, a module that is not one, a module its operator does not accept, and
/// a call that contradicts itself, each with its own error code, and goes on serving.
@Suite(.devCertificates, .serialized)
struct ModuleCallTests {
    private let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.forCurrentSuite()
    }

    /// Three places around Lausanne.
    static func places() throws -> Frame {
        try Frame(columns: [
            Column(name: "latitude", values: .double([46.5197, 46.5301, 46.5012])),
            Column(name: "longitude", values: .double([6.6323, 6.6401, 6.6250])),
        ])
    }

    static let twoDecimals = ComputeParameters(["decimals": "2"])

    /// The example module `location-bounds`.
    static func bounds() throws -> ComputeModule {
        try ComputeModule(bytes: ExampleModules.bytes("location-bounds"))
    }

    /// The same computation, rebuilt: one more custom section, so another module (another digest)
    /// with the same manifest.
    static func rebuiltBounds() throws -> ComputeModule {
        try ComputeModule(bytes: ExampleModules.appendingSection("build", Array("rebuilt".utf8), to: ExampleModules.bytes("location-bounds")))
    }

    /// Calls `module` with `places()`, sending its bytes when `sendingBytes`.
    static func call(_ module: ComputeModule, sendingBytes: Bool, on connection: ComputeConnection) async throws -> RemoteComputeResult {
        try await connection.compute(module.descriptor, input: places(), parameters: twoDecimals,
                                     module: ModuleCall(sha256: module.sha256, bytes: sendingBytes ? module.bytes : nil),
                                     deadline: .seconds(30))
    }

    /// The server's refusal of `call`: its code and message (nil, and an issue, when it ran or
    /// failed otherwise).
    static func refusal(sourceLocation: SourceLocation = #_sourceLocation,
                        _ call: () async throws -> RemoteComputeResult) async -> (code: Escrow_V1_Error.Code, message: String)? {
        do {
            let result = try await call()
            Issue.record("the call ran and returned \(result.output.rowCount) rows", sourceLocation: sourceLocation)
        } catch RPCError.remote(let code, let message) {
            return (code, message)
        } catch {
            Issue.record("the call failed with \(error), not a refusal from the server", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// Asserts that `module` (location-bounds, or a rebuild of it) runs on `connection` and gives
    /// the box around the places, saying it ran this module.
    static func expectRuns(_ module: ComputeModule, sendingBytes: Bool, on connection: ComputeConnection,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await call(module, sendingBytes: sendingBytes, on: connection)
        #expect(result.moduleSHA256 == module.sha256, "the server says which module ran", sourceLocation: sourceLocation)
        #expect(result.output.columnNames == ["south", "west", "north", "east", "places"], sourceLocation: sourceLocation)
        // Widened outward to two decimals: 46.5012 → 46.50, 6.6250 → 6.62, 46.5301 → 46.54, 6.6401 → 6.65.
        let box = try ["south", "west", "north", "east"].map { try result.output.column($0).double(at: 0) }
        #expect(box == [46.50, 6.62, 46.54, 6.65], sourceLocation: sourceLocation)
        #expect(try result.output.column("places").int64(at: 0) == 3, sourceLocation: sourceLocation)
    }

    @Test func aServerAsksForAModuleItDoesNotHaveRunsItWhenSentAndKeepsIt() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        let module = try Self.bounds()
        try await RemoteFixtures.withConnection(to: server) { connection in
            let needed = await Self.refusal { try await Self.call(module, sendingBytes: false, on: connection) }
            #expect(needed?.code == .moduleNeeded)
            #expect(needed?.message.contains("does not have module \(module.sha256); send it with the call") == true, "\(needed?.message ?? "")")

            try await Self.expectRuns(module, sendingBytes: true, on: connection)
            // Named by its digest alone, the module the server kept runs.
            try await Self.expectRuns(module, sendingBytes: false, on: connection)
        }
        // Kept for the server, not for one connection.
        try await RemoteFixtures.withConnection(to: server) { fresh in
            try await Self.expectRuns(module, sendingBytes: false, on: fresh)
        }
    }

    /// Bytes a call sends under location-bounds' digest that are not location-bounds.
    enum WrongBytes: String, CaseIterable, Sendable, CustomStringConvertible {
        case anotherModule, noModuleAtAll
        var description: String { rawValue }

        func bytes() throws -> [UInt8] {
            switch self {
            case .anotherModule: try ModuleCallTests.rebuiltBounds().bytes
            case .noModuleAtAll: Array("#!/bin/sh\necho hi\n".utf8)
            }
        }
    }

    @Test(arguments: WrongBytes.allCases)
    func bytesThatAreNotTheNamedModuleAreADigestMismatchAndNotKept(_ wrong: WrongBytes) async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        let module = try Self.bounds()
        let bytes = try wrong.bytes()
        try await RemoteFixtures.withConnection(to: server) { connection in
            let mismatch = await Self.refusal {
                try await connection.compute(module.descriptor, input: Self.places(), parameters: Self.twoDecimals,
                                             module: ModuleCall(sha256: module.sha256, bytes: bytes), deadline: .seconds(30))
            }
            #expect(mismatch?.code == .digestMismatch, "\(mismatch.map { "\($0.code): \($0.message)" } ?? "")")
            #expect(mismatch?.message.contains("have SHA-256 \(ComputeModule.sha256(of: bytes)), not \(module.sha256)") == true,
                    "\(mismatch?.message ?? "")")

            // Neither digest was kept from those bytes.
            for digest in [module.sha256, ComputeModule.sha256(of: bytes)] {
                let named = FunctionDescriptor(id: module.manifest.id, version: module.manifest.version, codeDigest: digest, summary: "")
                let needed = await Self.refusal {
                    try await connection.compute(named, input: Self.places(), parameters: Self.twoDecimals,
                                                 module: ModuleCall(sha256: digest), deadline: .seconds(30))
                }
                #expect(needed?.code == .moduleNeeded, "\(needed?.message ?? "")")
            }
            try await Self.expectRuns(module, sendingBytes: true, on: connection)
        }
    }

    @Test func aServerKeepsAsManyModulesAsItsCacheHoldsAndAsksAgainForOneItDropped() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates, extraArguments: ["--module-cache", "1"])
        defer { server.kill() }
        let first = try Self.bounds(), second = try Self.rebuiltBounds()
        try await RemoteFixtures.withConnection(to: server) { connection in
            try await Self.expectRuns(first, sendingBytes: true, on: connection)
            try await Self.expectRuns(second, sendingBytes: true, on: connection)
            try await Self.expectRuns(second, sendingBytes: false, on: connection)
            let dropped = await Self.refusal { try await Self.call(first, sendingBytes: false, on: connection) }
            #expect(dropped?.code == .moduleNeeded, "\(dropped?.message ?? "")")
            try await Self.expectRuns(first, sendingBytes: true, on: connection)
        }
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: @Sendable () throws -> [UInt8]
        let says: String
        var testDescription: String { name }
    }

    static func wat(_ text: String) throws -> [UInt8] {
        ExampleModules.withManifest(try wat2wasm(text), ExampleModules.manifest(id: "test.hostile"))
    }

    static let invalid: [Invalid] = [
        Invalid(name: "a shell script", bytes: { Array("#!/bin/sh\necho hi\n".utf8) }, says: "the module is not valid WebAssembly"),
        Invalid(name: "a truncated binary", bytes: { Array(try ExampleModules.bytes("location-bounds").prefix(1000)) },
                says: "the module is not valid WebAssembly"),
        Invalid(name: "an import the escrow does not offer", bytes: {
            try wat("""
                (module (import "wasi_snapshot_preview1" "random_get" (func (param i32 i32) (result i32)))
                  (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))
                """)
        }, says: "imports wasi_snapshot_preview1.random_get, which the escrow does not offer"),
        Invalid(name: "no escrow_run", bytes: { try wat(#"(module (memory (export "memory") 1))"#) },
                says: "does not export escrow_run"),
        Invalid(name: "no manifest", bytes: {
            try wat2wasm(#"(module (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))"#)
        }, says: "has no \"escrow.module\" custom section"),
    ]

    /// Every invalid module of the table, one after another on one server.
    @Test func aModuleThatIsNotOneIsInvalidWithItsReasonAndNotKept() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        for invalid in Self.invalid { try await check(invalid, on: server) }
    }

    private func check(_ invalid: Invalid, on server: ComputeServerProcess) async throws {
        let bytes = try invalid.bytes()
        let digest = ComputeModule.sha256(of: bytes)
        let descriptor = FunctionDescriptor(id: "test.hostile", version: 1, codeDigest: digest, summary: "")
        try await RemoteFixtures.withConnection(to: server) { connection in
            let refused = await Self.refusal {
                try await connection.compute(descriptor, input: Self.places(), parameters: ComputeParameters(),
                                             module: ModuleCall(sha256: digest, bytes: bytes), deadline: .seconds(30))
            }
            #expect(refused?.code == .invalidModule)
            #expect(refused?.message.contains(invalid.says) == true, "\(refused?.message ?? "")")
            let again = await Self.refusal {
                try await connection.compute(descriptor, input: Self.places(), parameters: ComputeParameters(),
                                             module: ModuleCall(sha256: digest), deadline: .seconds(30))
            }
            #expect(again?.code == .moduleNeeded, "a refused module is not kept: \(again?.message ?? "")")
            try await Self.expectRuns(try Self.bounds(), sendingBytes: true, on: connection)
        }
    }

    @Test func aServerAllowingOtherModulesRefusesThisOneAndRunsThose() async throws {
        let allowed = try Self.bounds()
        let other = try Self.rebuiltBounds()
        let server = try await ComputeServerProcess.start(certificates: certificates, extraArguments: ["--allow-module", allowed.sha256])
        defer { server.kill() }
        try await RemoteFixtures.withConnection(to: server) { connection in
            for sendingBytes in [false, true] {
                let refused = await Self.refusal { try await Self.call(other, sendingBytes: sendingBytes, on: connection) }
                #expect(refused?.code == .moduleRefused)
                #expect(refused?.message.contains("does not accept module \(other.sha256)") == true, "\(refused?.message ?? "")")
            }
            try await Self.expectRuns(allowed, sendingBytes: true, on: connection)
        }
    }

    @Test func aServerRunningNoModulesRefusesThemAndStillRunsItsFunctions() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates, extraArguments: ["--no-modules"])
        defer { server.kill() }
        let module = try Self.bounds()
        try await RemoteFixtures.withConnection(to: server) { connection in
            for sendingBytes in [false, true] {
                let refused = await Self.refusal { try await Self.call(module, sendingBytes: sendingBytes, on: connection) }
                #expect(refused?.code == .moduleRefused)
                #expect(refused?.message.contains("runs no compute modules") == true, "\(refused?.message ?? "")")
            }
            try await RemoteFixtures.expectStillServes(server, existing: connection)
        }
    }

    struct Contradiction: Sendable, CustomTestStringConvertible {
        let name: String
        /// The digest the call names as the module's, from the real one.
        let moduleSHA256: @Sendable (String) -> String
        /// The call's code digest, from the real one.
        let codeDigest: @Sendable (String) -> String
        let says: String
        var testDescription: String { name }
    }

    static let contradictions: [Contradiction] = [
        Contradiction(name: "a code digest other than the module's", moduleSHA256: { $0 }, codeDigest: { String($0.reversed()) },
                      says: "code_digest must equal module_sha256 for a module"),
        Contradiction(name: "no code digest", moduleSHA256: { $0 }, codeDigest: { _ in "" },
                      says: "code_digest must equal module_sha256 for a module"),
        Contradiction(name: "an upper-case digest", moduleSHA256: { $0.uppercased() }, codeDigest: { $0.uppercased() },
                      says: "module_sha256 must be 64 lower-case hex digits"),
        Contradiction(name: "a digest prefix", moduleSHA256: { String($0.prefix(12)) }, codeDigest: { String($0.prefix(12)) },
                      says: "module_sha256 must be 64 lower-case hex digits"),
        Contradiction(name: "a digest that is not hex", moduleSHA256: { String($0.dropLast()) + "g" }, codeDigest: { String($0.dropLast()) + "g" },
                      says: "module_sha256 must be 64 lower-case hex digits"),
    ]

    /// Every contradiction of the table, one after another on one server.
    @Test func aCallThatContradictsItselfIsABadRequest() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        for contradiction in Self.contradictions { try await check(contradiction, on: server) }
    }

    private func check(_ contradiction: Contradiction, on server: ComputeServerProcess) async throws {
        let module = try Self.bounds()
        let descriptor = FunctionDescriptor(id: module.manifest.id, version: module.manifest.version,
                                            codeDigest: contradiction.codeDigest(module.sha256), summary: "")
        try await RemoteFixtures.withConnection(to: server) { connection in
            let refused = await Self.refusal {
                try await connection.compute(descriptor, input: Self.places(), parameters: Self.twoDecimals,
                                             module: ModuleCall(sha256: contradiction.moduleSHA256(module.sha256), bytes: module.bytes),
                                             deadline: .seconds(30))
            }
            #expect(refused?.code == .badRequest)
            #expect(refused?.message == contradiction.says)
            try await Self.expectRuns(module, sendingBytes: true, on: connection)
        }
    }

    /// Another id, then another version, on one server.
    @Test func aModuleWhoseManifestIsNotTheCallsFunctionIsADigestMismatch() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        for (id, version) in [("example.other-bounds", 1), ("example.location-bounds", 2)] {
            try await checkManifestMismatch(id: id, version: version, on: server)
        }
    }

    private func checkManifestMismatch(id: String, version: Int, on server: ComputeServerProcess) async throws {
        let module = try Self.bounds()
        let descriptor = FunctionDescriptor(id: id, version: version, codeDigest: module.sha256, summary: "")
        try await RemoteFixtures.withConnection(to: server) { connection in
            let refused = await Self.refusal {
                try await connection.compute(descriptor, input: Self.places(), parameters: Self.twoDecimals,
                                             module: ModuleCall(sha256: module.sha256, bytes: module.bytes), deadline: .seconds(30))
            }
            #expect(refused?.code == .digestMismatch)
            #expect(refused?.message.contains("is example.location-bounds@1, not \(id)@\(version) as the call says") == true,
                    "\(refused?.message ?? "")")
            try await Self.expectRuns(module, sendingBytes: true, on: connection)
        }
    }
}
