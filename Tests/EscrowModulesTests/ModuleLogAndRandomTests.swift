import EscrowCore
import EscrowModules
import EscrowTestSupport
import EscrowWire
import Synchronization
import Testing
import WAT

/// What the escrow hands a module through `log` and `random` (docs/MODULES.md, "The ABI"): log
/// lines escaped, at most 1,000 bytes each and 100 per run, and nothing else; random bytes fresh
/// on every run, at most 1 MiB per call.
@Suite struct ModuleLogAndRandomTests {
    let sandbox = ModuleSandbox()

    /// The output `bytes` columns' placeholder: the module writes over it before writing the frame.
    static let placeholder: UInt8 = 0xAB

    /// A frame of one row with the bytes column `random` of `count` placeholder bytes, encoded, and
    /// where the cell's bytes begin in the encoding.
    static func outputFrame(count: Int) throws -> (bytes: [UInt8], cell: Int) {
        let frame = try Frame(columns: [Column(name: "random", values: .bytes([[UInt8](repeating: placeholder, count: count)]))])
        let encoded = frame.encoded
        let run = [UInt8](repeating: placeholder, count: count)
        let cell = try #require((0...(encoded.count - count)).first { Array(encoded[$0 ..< $0 + count]) == run })
        return (encoded, cell)
    }

    /// The line with what a terminal would act on: an escape sequence, a line break, a
    /// right-to-left override.
    static let hostileLine = "the module says \u{1B}[31mred\nnext line \u{202E}desrever"

    /// Fills 32 bytes of its output with `random`, logs the hostile line, a 1,500-byte line, then
    /// 150 one-byte lines.
    static func logger() throws -> ComputeModule {
        let (frame, cell) = try outputFrame(count: 32)
        let line = Array(hostileLine.utf8)
        let long = String(repeating: "x", count: 1500)
        return try ComputeModule(bytes: ExampleModules.withManifest(try wat2wasm("""
            (module
              (import "escrow" "log" (func $log (param i32 i32)))
              (import "escrow" "random" (func $random (param i32 i32)))
              (import "escrow" "output_write" (func $out (param i32 i32)))
              (memory (export "memory") 1)
              (data (i32.const 0) "\(ExampleModules.watString(frame))")
              (data (i32.const 1024) "\(ExampleModules.watString(line))")
              (data (i32.const 2048) "\(long)")
              (func (export "escrow_run") (result i32) (local $i i32)
                (call $random (i32.const \(cell)) (i32.const 32))
                (call $log (i32.const 1024) (i32.const \(line.count)))
                (call $log (i32.const 2048) (i32.const 1500))
                (loop $more
                  (call $log (i32.const 2048) (i32.const 1))
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (br_if $more (i32.lt_u (local.get $i) (i32.const 150))))
                (call $out (i32.const 0) (i32.const \(frame.count)))
                (i32.const 0)))
            """), ExampleModules.manifest(id: "test.log-random")))
    }

    @Test func logLinesAreEscapedBoundedAndCounted() async throws {
        let module = try Self.logger()
        #expect(module.capabilities == [.log, .randomness])
        let lines = Mutex<[String]>([])
        _ = try await sandbox.run(module, input: try Frame(columns: []), context: ComputeContext()) { line in
            lines.withLock { $0.append(line) }
        }
        let logged = lines.withLock { $0 }
        #expect(logged.count == ModuleLimits.maximumLogLines, "152 lines logged, the first 100 kept")
        let first = try #require(logged.first)
        #expect(first == DisplayText.escaped(Self.hostileLine))
        #expect(first.hasPrefix("the module says "))
        #expect(!first.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\n" || $0 == "\u{202E}" }, "\(first)")
        #expect(logged.dropFirst().first == String(repeating: "x", count: ModuleLimits.maximumLogLineBytes))
        #expect(logged.dropFirst(2).allSatisfy { $0 == "x" })
    }

    @Test func randomHandsFreshBytesOnEveryRun() async throws {
        let module = try Self.logger()
        var seen: Set<[UInt8]> = []
        for _ in 0..<3 {
            let output = try await sandbox.run(module, input: try Frame(columns: []), context: ComputeContext())
            let bytes = try #require(try output.column("random").bytes(at: 0))
            #expect(bytes.count == 32)
            #expect(bytes != [UInt8](repeating: Self.placeholder, count: 32), "random wrote over the placeholder")
            seen.insert(bytes)
        }
        #expect(seen.count == 3, "each run has bytes of its own")
    }

    @Test func randomFillsAtMostOneMebibytePerCall() async throws {
        // Asks for 2 MiB at 4096, then outputs the 64 bytes around where the first MiB ends.
        let (frame, cell) = try Self.outputFrame(count: 64)
        let end = 4096 + (1 << 20)
        let module = try ComputeModule(bytes: ExampleModules.withManifest(try wat2wasm("""
            (module
              (import "escrow" "random" (func $random (param i32 i32)))
              (import "escrow" "output_write" (func $out (param i32 i32)))
              (memory (export "memory") 48)
              (data (i32.const 0) "\(ExampleModules.watString(frame))")
              (func (export "escrow_run") (result i32)
                (call $random (i32.const 4096) (i32.const \(2 << 20)))
                (memory.copy (i32.const \(cell)) (i32.const \(end - 32)) (i32.const 64))
                (call $out (i32.const 0) (i32.const \(frame.count)))
                (i32.const 0)))
            """), ExampleModules.manifest(id: "test.random-cap")))
        let output = try await sandbox.run(module, input: try Frame(columns: []), context: ComputeContext())
        let bytes = try #require(try output.column("random").bytes(at: 0))
        #expect(Array(bytes.prefix(32)) != [UInt8](repeating: 0, count: 32), "the first MiB is random")
        #expect(Array(bytes.suffix(32)) == [UInt8](repeating: 0, count: 32), "past it, memory is as the module left it")
    }
}
