import EscrowCore
import EscrowFunctions
import EscrowModules
import EscrowNetwork
import EscrowTestSupport
import EscrowWire
import Testing
import WAT

/// Runs in the sandbox: the same output as native code, every limit with its own error, and a
/// fresh instance per run.
@Suite struct ModuleSandboxTests {
    let sandbox = ModuleSandbox()

    static func module(_ text: String, manifest: String = ExampleModules.manifest()) throws -> ComputeModule {
        try ComputeModule(bytes: ExampleModules.withManifest(try wat2wasm(text), manifest))
    }

    /// A random Location-like frame: doubles or integers, some nulls.
    static func places(_ random: inout SplitMix64, rows: Int, integers: Bool = false) throws -> Frame {
        var latitude = ColumnBuilder(name: "latitude", type: integers ? .int64 : .double)
        var longitude = ColumnBuilder(name: "longitude", type: .double)
        var label = ColumnBuilder(name: "label", type: .string)
        for row in 0..<rows {
            if row % 7 == 3 {
                latitude.appendNull()
            } else if integers {
                latitude.append(Int64(random.next() % 180) - 90)
            } else {
                latitude.append(Double(random.next() % 1_800_000_000) / 1e7 - 90)
            }
            longitude.append(Double(random.next() % 3_600_000_000) / 1e7 - 180)
            label.append("place \(row)")
        }
        return try Frame(columns: [latitude.build(), longitude.build(), label.build()])
    }

    @Test(arguments: [0, 1, 2, 17, 500])
    func theCModuleGivesTheSameOutputAsItsSwiftTwin(rows: Int) async throws {
        let module = try ComputeModule(bytes: ExampleModules.bytes("location-bounds"))
        var random = SplitMix64(seed: UInt64(rows) + 11)
        for integers in [false, true] {
            let input = try Self.places(&random, rows: rows, integers: integers)
            for decimals in ["0", "2", "5"] {
                let context = ComputeContext(parameters: ComputeParameters(["decimals": decimals]))
                // Outputs compared, not limits: a wall time a loaded machine running the whole
                // suite cannot exceed (the default 10 s was, once, for 500 rows).
                let fromModule = try await sandbox.run(module, input: input, context: context,
                                                       limits: ModuleLimits(wallTime: .seconds(120)))
                let native = try LocationBounds().compute(input, context: context)
                #expect(fromModule == native, "rows \(rows), integers \(integers), decimals \(decimals)")
            }
        }
    }

    @Test func parametersAndInputsAreCheckedAgainstTheManifestBeforeTheModuleRuns() async throws {
        let module = try ComputeModule(bytes: ExampleModules.bytes("location-bounds"))
        var random = SplitMix64(seed: 3)
        let input = try Self.places(&random, rows: 3)
        await #expect(throws: ComputeError.self) {
            try await sandbox.run(module, input: input, context: ComputeContext(parameters: ComputeParameters(["decimals": "9"])))
        }
        await #expect(throws: ComputeError.self) {
            try await sandbox.run(module, input: input, context: ComputeContext(parameters: ComputeParameters(["zoom": "1"])))
        }
        let wrong = try Frame(columns: [Column(name: "latitude", values: .string(["north"]))])
        await #expect(throws: FrameError.self) { try await sandbox.run(module, input: wrong, context: ComputeContext()) }
    }

    /// Writes the 12-byte frame {n: int64 [v]} with v = the global counter after one increment:
    /// 1 on a fresh instance, more if anything survived a run.
    static let counter = """
        (module
          (import "escrow" "output_write" (func $out (param i32 i32)))
          (memory (export "memory") 1)
          (global $runs (mut i32) (i32.const 0))
          (data (i32.const 0) "\\0a\\08\\0a\\01n\\10\\01\\22\\01\\00\\10\\01")
          (func (export "escrow_run") (result i32)
            (global.set $runs (i32.add (global.get $runs) (i32.const 1)))
            (i32.store8 (i32.const 9) (i32.add (i32.load8_u (i32.const 9)) (i32.shl (global.get $runs) (i32.const 1))))
            (call $out (i32.const 0) (i32.const 12))
            (i32.const 0)))
        """

    @Test func everyRunIsAFreshInstanceSoNothingSurvivesACall() async throws {
        let module = try Self.module(Self.counter)
        for _ in 0..<3 {
            let output = try await sandbox.run(module, input: try .empty, context: ComputeContext())
            #expect(try output.column("n").int64(at: 0) == 1)
        }
    }

    /// Writes the 12-byte frame {n: int64 [value]} from memory offset 0 (value < 64).
    static let frameOfN = #"(data (i32.const 0) "\0a\08\0a\01n\10\01\22\01\00\10\01")"#

    @Test func aRunThatGrewItsMemoryLeavesNoTraceForTheNext() async throws {
        // n = the memory's size in pages when the run starts; then it grows by one page.
        let module = try Self.module("""
            (module
              (import "escrow" "output_write" (func $out (param i32 i32)))
              (memory (export "memory") 1)
              \(Self.frameOfN)
              (func (export "escrow_run") (result i32)
                (i32.store8 (i32.const 9) (i32.shl (memory.size) (i32.const 1)))
                (drop (memory.grow (i32.const 1)))
                (call $out (i32.const 0) (i32.const 12))
                (i32.const 0)))
            """)
        for _ in 0..<3 {
            let output = try await sandbox.run(module, input: try .empty, context: ComputeContext())
            #expect(try output.column("n").int64(at: 0) == 1, "every run starts with the module's one page")
        }
    }

    @Test func aModuleThatCanChangeATableStartsEveryRunWithItsTableAsInstantiated() async throws {
        // n = 1 when table slot 0 is still null at the start, 2 when an earlier run's table.set is seen.
        let module = try Self.module("""
            (module
              (import "escrow" "output_write" (func $out (param i32 i32)))
              (memory (export "memory") 1)
              (table 1 funcref)
              \(Self.frameOfN)
              (func $f)
              (elem declare func $f)
              (func (export "escrow_run") (result i32)
                (i32.store8 (i32.const 9) (select (i32.const 2) (i32.const 4) (ref.is_null (table.get 0 (i32.const 0)))))
                (table.set 0 (i32.const 0) (ref.func $f))
                (call $out (i32.const 0) (i32.const 12))
                (i32.const 0)))
            """)
        for _ in 0..<3 {
            let output = try await sandbox.run(module, input: try .empty, context: ComputeContext())
            #expect(try output.column("n").int64(at: 0) == 1)
        }
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let limits: ModuleLimits
        let expected: @Sendable (ModuleRunError) -> Bool
        let says: String
        var testDescription: String { name }
    }

    static let small = ModuleLimits(fuel: 5_000_000, memoryBytes: 4 * 65536, wallTime: .seconds(20))

    static let failures: [Failure] = [
        Failure(name: "an infinite loop", text: """
            (module (memory (export "memory") 1) (func (export "escrow_run") (result i32) (loop $l (br $l)) (i32.const 0)))
            """, limits: small, expected: { $0 == .outOfFuel(limit: 5_000_000) }, says: "more than 5000000 instructions"),
        Failure(name: "a memory bomb", text: """
            (module (memory (export "memory") 1)
              (func (export "escrow_run") (result i32)
                (loop $l (br_if $l (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))
                unreachable))
            """, limits: small, expected: { $0 == .memoryLimit(limit: 4 * 65536, asked: 5 * 65536) }, says: "asked for 327680 bytes"),
        Failure(name: "an initial memory over the limit", text: """
            (module (memory (export "memory") 100) (func (export "escrow_run") (result i32) (i32.const 0)))
            """, limits: small, expected: { if case .memoryLimit = $0 { true } else { false } }, says: "memory"),
        Failure(name: "a trap", text: """
            (module (memory (export "memory") 1) (func (export "escrow_run") (result i32) unreachable))
            """, limits: small, expected: { $0 == .trapped("unreachable") }, says: "trapped (unreachable)"),
        Failure(name: "a division by zero", text: """
            (module (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.div_u (i32.const 1) (i32.const 0))))
            """, limits: small, expected: { $0 == .trapped("integer divide by zero") }, says: "integer divide by zero"),
        Failure(name: "unbounded recursion", text: """
            (module (memory (export "memory") 1) (func $f (export "escrow_run") (result i32) (call $f)))
            """, limits: ModuleLimits(fuel: 100_000_000, memoryBytes: 65536, wallTime: .seconds(20)),
            expected: { $0 == .trapped("call stack exhausted") }, says: "call stack exhausted"),
        Failure(name: "a module that fails with a reason", text: """
            (module (import "escrow" "fail" (func $fail (param i32 i32)))
              (memory (export "memory") 1) (data (i32.const 16) "no places\\1b[31m")
              (func (export "escrow_run") (result i32) (call $fail (i32.const 16) (i32.const 14)) (i32.const 0)))
            """, limits: small, expected: { $0 == .failed("no places\\u{1B}[31m") }, says: "failed: no places\\u{1B}"),
        Failure(name: "a non-zero return", text: """
            (module (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 7)))
            """, limits: small, expected: { $0 == .returned(7) }, says: "returned 7"),
        Failure(name: "no output", text: """
            (module (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))
            """, limits: small, expected: { $0 == .noOutput }, says: "without writing an output frame"),
        Failure(name: "an output that is not a frame", text: """
            (module (import "escrow" "output_write" (func $out (param i32 i32)))
              (memory (export "memory") 1) (data (i32.const 0) "\\ff\\ff\\ff")
              (func (export "escrow_run") (result i32) (call $out (i32.const 0) (i32.const 3)) (i32.const 0)))
            """, limits: small, expected: { if case .badOutput = $0 { true } else { false } }, says: "not a valid frame"),
        Failure(name: "a pointer outside its memory", text: """
            (module (import "escrow" "input_read" (func $in (param i32)))
              (import "escrow" "input_size" (func $size (result i32)))
              (memory (export "memory") 1)
              (func (export "escrow_run") (result i32) (call $in (i32.sub (i32.const 65536) (i32.const 1))) (i32.const 0)))
            """, limits: small, expected: { if case .badCall(function: "input_read", _) = $0 { true } else { false } },
            says: "lies outside its 65536-byte memory"),
    ]

    @Test(arguments: failures)
    func aRunThatBreaksALimitOrFailsSaysWhich(_ failure: Failure) async throws {
        let module = try Self.module(failure.text)
        var random = SplitMix64(seed: 5)
        let input = try Self.places(&random, rows: 4)
        do {
            _ = try await sandbox.run(module, input: input, context: ComputeContext(), limits: failure.limits)
            Issue.record("\(failure.name) produced an output")
        } catch let error as ModuleRunError {
            #expect(failure.expected(error), "\(error)")
            #expect(error.description.contains(failure.says), "\(error)")
        }
        // The sandbox goes on serving.
        let counter = try await sandbox.run(try Self.module(Self.counter), input: try .empty, context: ComputeContext())
        #expect(counter.rowCount == 1)
    }

    @Test func aRunPastItsWallTimeIsAnsweredAtTheLimitAndItsThreadLetGo() async throws {
        // A service that accepts and never answers: the module waits in http_send past its limit.
        let silent = try SilentListener()
        defer { silent.close() }
        let module = try Self.module("""
            (module
              (import "escrow" "parameter_size" (func $size (param i32 i32) (result i32)))
              (import "escrow" "parameter_read" (func $read (param i32 i32 i32)))
              (import "escrow" "http_send" (func $send (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
              (memory (export "memory") 1)
              (data (i32.const 0) "GETservice")
              (func (export "escrow_run") (result i32) (local $length i32)
                (local.set $length (call $size (i32.const 3) (i32.const 7)))
                (call $read (i32.const 3) (i32.const 7) (i32.const 100))
                (drop (call $send (i32.const 0) (i32.const 3) (i32.const 100) (local.get $length)
                                  (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))
                (i32.const 0)))
            """, manifest: ExampleModules.manifest(parameters: #"[{"name": "service", "kind": "service-url", "maxLength": 100, "summary": "where"}]"#))
        let limits = ModuleLimits(fuel: 10_000_000, memoryBytes: 65536, wallTime: .milliseconds(300))
        let context = ComputeContext(parameters: ComputeParameters(["service": silent.url]), network: HTTPNetworkClient())
        for _ in 0..<3 {
            await #expect(throws: ModuleRunError.wallTime(limit: .milliseconds(300))) {
                try await sandbox.run(module, input: try .empty, context: context, limits: limits)
            }
        }
    }

    @Test func aModuleWithoutTheNetworkIsToldSoInWords() async throws {
        let module = try Self.module("""
            (module
              (import "escrow" "http_send" (func $send (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
              (import "escrow" "http_response_size" (func $size (result i32)))
              (import "escrow" "http_response_read" (func $read (param i32)))
              (import "escrow" "output_write" (func $out (param i32 i32)))
              (memory (export "memory") 1)
              (data (i32.const 0) "GEThttp://example.org/")
              (data (i32.const 100) "\\0a\\08\\0a\\01n\\10\\01\\22\\01\\00\\10\\01")
              (func (export "escrow_run") (result i32) (local $status i32)
                (local.set $status (call $send (i32.const 0) (i32.const 3) (i32.const 3) (i32.const 19) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))
                ;; n = the status's zigzag (-3 → 5); the failure's words at 200.
                (i32.store8 (i32.const 109) (i32.xor (i32.shl (local.get $status) (i32.const 1)) (i32.shr_s (local.get $status) (i32.const 31))))
                (call $read (i32.const 200))
                (call $out (i32.const 100) (i32.const 12))
                (i32.const 0)))
            """)
        #expect(module.capabilities == [.network])
        let output = try await sandbox.run(module, input: try .empty, context: ComputeContext())
        #expect(try output.column("n").int64(at: 0) == Int64(ModuleABI.SendFailure.noNetwork.rawValue))
    }
}

extension Frame {
    /// A frame with no columns (and so no rows).
    static var empty: Frame {
        get throws { try Frame(columns: []) }
    }
}
