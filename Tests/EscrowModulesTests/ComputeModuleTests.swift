import EscrowCore
import EscrowModules
import EscrowTestSupport
import Testing
import WAT

/// What the escrow accepts as a compute module, and what it refuses when a module is added, each
/// with its reason.
@Suite struct ComputeModuleTests {
    /// A module in the text format, with a manifest.
    static func module(_ text: String, manifest: String = ExampleModules.manifest()) throws -> [UInt8] {
        ExampleModules.withManifest(try wat2wasm(text), manifest)
    }

    static let minimal = """
        (module (memory (export "memory") 1)
          (func (export "escrow_run") (result i32) (i32.const 0)))
        """

    @Test func theExampleModulesAreAcceptedWithWhatTheirImportsLetThemDo() throws {
        let bounds = try ComputeModule(bytes: ExampleModules.bytes("location-bounds"))
        #expect(bounds.manifest.id == "example.location-bounds")
        #expect(bounds.manifest.version == 1)
        #expect(bounds.capabilities.isEmpty)
        #expect(!bounds.contactsNetwork)
        #expect(bounds.abilities == "cannot contact anything; only its output reaches the app")
        #expect(bounds.sha256.count == 64)
        #expect(bounds.manifest.parameters.map(\.name) == ["decimals"])
        #expect(bounds.descriptor.codeDigest == bounds.sha256)

        let weather = try ComputeModule(bytes: ExampleModules.bytes("weather-swift"))
        #expect(weather.manifest.id == "example.weather-swift")
        #expect(weather.capabilities == [.network])
        #expect(weather.imports.contains("http_send"))
        #expect(weather.abilities.hasPrefix("may send requests to services on the network"))
    }

    @Test func theDigestIsTheSHA256OfTheBytesSoAnyChangeIsAnotherModule() throws {
        let bytes = try ExampleModules.bytes("location-bounds")
        let one = try ComputeModule(bytes: bytes)
        let changed = try ComputeModule(bytes: ExampleModules.appendingSection("note", Array("v2".utf8), to: bytes))
        #expect(one.sha256 != changed.sha256)
        #expect(one.manifest == changed.manifest)
        // The empty string's SHA-256 checks the hex form.
        #expect(ComputeModule.hex([0xE3, 0xB0, 0x0A]) == "e3b00a")
    }

    @Test func aMinimalModuleIsAcceptedAndCanDoNothingButCompute() throws {
        let module = try ComputeModule(bytes: Self.module(Self.minimal))
        #expect(module.imports.isEmpty)
        #expect(module.abilities == "cannot contact anything; only its output reaches the app")
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: @Sendable () throws -> [UInt8]
        let expected: @Sendable (ModuleError) -> Bool
        let says: String
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "not WebAssembly at all", bytes: { Array("#!/bin/sh\necho hi\n".utf8) },
                expected: { if case .notWebAssembly = $0 { true } else { false } }, says: "not valid WebAssembly"),
        Refusal(name: "a truncated binary", bytes: { Array(try ExampleModules.bytes("location-bounds").prefix(600)) },
                expected: { if case .notWebAssembly = $0 { true } else { false } }, says: "not valid WebAssembly"),
        Refusal(name: "empty", bytes: { [] },
                expected: { if case .notWebAssembly = $0 { true } else { false } }, says: "not valid WebAssembly"),
        Refusal(name: "WASI's fd_write", bytes: {
            try module("""
                (module (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
                  (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))
                """)
        }, expected: { $0 == .unknownImport(module: "wasi_snapshot_preview1", name: "fd_write") }, says: "no WASI"),
        Refusal(name: "a clock", bytes: {
            try module("""
                (module (import "env" "clock_time_get" (func (result i64)))
                  (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))
                """)
        }, expected: { $0 == .unknownImport(module: "env", name: "clock_time_get") }, says: "env.clock_time_get"),
        Refusal(name: "an escrow name the escrow does not offer", bytes: {
            try module("""
                (module (import "escrow" "open_file" (func (param i32 i32) (result i32)))
                  (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))
                """)
        }, expected: { $0 == .unknownImport(module: "escrow", name: "open_file") }, says: "escrow.open_file"),
        Refusal(name: "an imported memory", bytes: {
            try module("""
                (module (import "escrow" "input_size" (memory 1))
                  (func (export "escrow_run") (result i32) (i32.const 0)))
                """)
        }, expected: { if case .wrongImport(name: "input_size", _) = $0 { true } else { false } }, says: "wrong type"),
        Refusal(name: "an escrow function under the wrong signature", bytes: {
            try module("""
                (module (import "escrow" "input_size" (func (param i64) (result i32)))
                  (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))
                """)
        }, expected: { $0 == .wrongImport(name: "input_size", expected: "() -> i32") }, says: "() -> i32"),
        Refusal(name: "no escrow_run", bytes: {
            try module(#"(module (memory (export "memory") 1) (func (export "main") (result i32) (i32.const 0)))"#)
        }, expected: { if case .missingExport(name: "escrow_run", _) = $0 { true } else { false } }, says: "escrow_run"),
        Refusal(name: "escrow_run with parameters", bytes: {
            try module(#"(module (memory (export "memory") 1) (func (export "escrow_run") (param i32) (result i32) (i32.const 0)))"#)
        }, expected: { if case .missingExport(name: "escrow_run", _) = $0 { true } else { false } }, says: "() -> i32"),
        Refusal(name: "no memory", bytes: {
            try module(#"(module (func (export "escrow_run") (result i32) (i32.const 0)))"#)
        }, expected: { if case .missingExport(name: "memory", _) = $0 { true } else { false } }, says: "memory"),
        Refusal(name: "no manifest", bytes: { try wat2wasm(minimal) },
                expected: { $0 == .missingManifest }, says: "llvm-objcopy --add-section"),
        Refusal(name: "two manifests", bytes: {
            ExampleModules.withManifest(try module(minimal), ExampleModules.manifest())
        }, expected: { if case .badManifest = $0 { true } else { false } }, says: "2 \"escrow.module\" sections"),
        Refusal(name: "a function body that does not type-check", bytes: {
            var bytes = try module(#"(module (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 7)))"#)
            // i32.const 7 (0x41 0x07) → f32.abs (0x8B) and nop: the body leaves no i32.
            guard let at = bytes.indices.first(where: { bytes[$0] == 0x41 && bytes[$0 + 1] == 0x07 }) else { return bytes }
            bytes[at] = 0x01
            bytes[at + 1] = 0x01
            return bytes
        }, expected: { if case .notWebAssembly = $0 { true } else { false } }, says: "not valid WebAssembly"),
        Refusal(name: "a built-in function's id", bytes: {
            try module(minimal, manifest: ExampleModules.manifest(id: "weather.current"))
        }, expected: { _ in true }, says: ""),
    ]

    @Test(arguments: refusals)
    func aModuleThatIsNotAcceptableIsRefusedNamingTheReason(_ refusal: Refusal) throws {
        let bytes = try refusal.bytes()
        if refusal.name == "a built-in function's id" {
            // The module itself is fine: the host refuses the id (ModuleStore), where the catalog is known.
            #expect(throws: Never.self) { try ComputeModule(bytes: bytes) }
            return
        }
        do {
            _ = try ComputeModule(bytes: bytes)
            Issue.record("accepted \(refusal.name)")
        } catch {
            #expect(refusal.expected(error), "\(error)")
            #expect(error.description.contains(refusal.says), "\(error)")
        }
    }

    @Test func aModuleLargerThanTheLimitIsRefusedBeforeItIsParsed() throws {
        let bytes = [UInt8](repeating: 0, count: ModuleLimits.maximumModuleBytes + 1)
        #expect(throws: ModuleError.tooLarge(bytes: bytes.count, limit: ModuleLimits.maximumModuleBytes)) {
            try ComputeModule(bytes: bytes)
        }
    }

    @Test func theCacheKeepsAtMostItsCapacityAndDropsTheLeastRecentlyUsed() throws {
        let cache = ModuleCache(capacity: 2)
        let modules = try (0..<3).map { index in
            try ComputeModule(bytes: Self.module(Self.minimal, manifest: ExampleModules.manifest(id: "test.m\(index)")))
        }
        cache.insert(modules[0])
        cache.insert(modules[1])
        #expect(cache.module(modules[0].sha256) != nil)
        cache.insert(modules[2])
        #expect(cache.count == 2)
        #expect(cache.module(modules[1].sha256) == nil)
        #expect(cache.module(modules[0].sha256) != nil)
        #expect(throws: ModuleError.self) {
            try cache.module(String(repeating: "0", count: 64)) { () throws(ModuleError) in modules[1].bytes }
        }
    }
}
