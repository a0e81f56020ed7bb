import EscrowTestSupport
import Foundation
import Testing

/// `scripts/check-modules.py` holds the package to `scripts/module-rules.txt`: it passes on the
/// package as it is, and fails, naming the path or the file, when a rule or an import is broken.
///
/// Each run evaluates a manifest with `swift package dump-package` (under a second; nothing is
/// built), so `swift` and `python3` must be on `PATH`, as they are wherever the tests build.
@Suite("the module graph's rules")
struct ModuleGraphTests {
    /// The rules file the package is checked against.
    static let rules = BuiltExecutable.packageRoot.appendingPathComponent("scripts/module-rules.txt")

    @Test("the package keeps every rule, and every import is declared")
    func packageKeepsItsRules() async throws {
        let outcome = try await Self.check()
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.output.contains("rules of scripts/module-rules.txt hold"), "\(outcome.output)")
    }

    /// A rules file the package as it is breaks, and what the check must then say.
    struct BrokenRule: Sendable, CustomTestStringConvertible {
        let testDescription: String
        /// The rule line of the real file that is replaced (by its start).
        let replacing: String
        /// The line put in its place ("" drops the rule).
        let with: String
        let expectedStatus: Int32
        let expected: [String]
    }

    static let brokenRules: [BrokenRule] = [
        BrokenRule(
            testDescription: "a forbidden module, reached through the SDK",
            replacing: "EscrowWeatherApp:", with: "EscrowWeatherApp: never EscrowSockets  # no sockets of its own",
            expectedStatus: 1,
            expected: ["EscrowWeatherApp must never reach EscrowSockets: EscrowWeatherApp → Escrow → EscrowWire → EscrowSockets",
                       "the rule: no sockets of its own"]),
        BrokenRule(
            testDescription: "a toolchain module one source file imports",
            replacing: "EscrowCore: only", with: "EscrowCore: only Foundation Synchronization",
            expectedStatus: 1,
            expected: ["EscrowCore may reach only Foundation, Synchronization, not Dispatch: EscrowCore → Dispatch (imported at Sources/EscrowCore/"]),
        BrokenRule(
            testDescription: "a rule over every test target, by glob",
            replacing: "*Tests:", with: "*Tests: never EscrowStore",
            expectedStatus: 1,
            expected: ["EscrowCoreTests must never reach EscrowStore: EscrowCoreTests → EscrowTestSupport → EscrowStore",
                       "EscrowCLITests must never reach EscrowStore: EscrowCLITests → EscrowTestSupport → EscrowStore"]),
        BrokenRule(
            testDescription: "a target without a rule",
            replacing: "EscrowDaemon:", with: "",
            expectedStatus: 1,
            expected: ["Package.swift's target EscrowDaemon has no rule"]),
        BrokenRule(
            testDescription: "a rule naming a module the package does not have",
            replacing: "Escrow:", with: "Escrow: never EscrowStorage",
            expectedStatus: 2,
            expected: ["EscrowStorage is no target, product or toolchain module of the package"]),
    ]

    @Test("a broken rule fails the check, which says where", arguments: brokenRules)
    func brokenRuleIsReported(_ broken: BrokenRule) async throws {
        let original = try String(contentsOf: Self.rules, encoding: .utf8)
        var replaced = 0
        let lines = original.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.hasPrefix(broken.replacing) else { return String(line) }
            replaced += 1
            return broken.with
        }
        try #require(replaced == 1, "scripts/module-rules.txt has \(replaced) lines starting \(broken.replacing)")
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = folder.appendingPathComponent("module-rules.txt")
        try lines.joined(separator: "\n").write(to: rules, atomically: true, encoding: .utf8)

        let outcome = try await Self.check(["--rules", rules.path])
        #expect(outcome.status == broken.expectedStatus, "\(outcome.errors)")
        for fragment in broken.expected {
            #expect(outcome.errors.contains(fragment), "\(outcome.errors)")
        }
    }

    @Test("an import the target does not declare fails the check, naming the file, the line and the fix")
    func undeclaredImportIsReported() async throws {
        let package = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: package) }
        try Self.write("""
            // swift-tools-version: 6.0
            import PackageDescription
            let package = Package(name: "Layers", targets: [
                .target(name: "Lower"),
                .target(name: "Upper", dependencies: ["Lower"]),
                .target(name: "Side"),
            ])
            """, to: package, "Package.swift")
        try Self.write("public let lower = 1\n", to: package, "Sources/Lower/Lower.swift")
        try Self.write("public let side = 1\n", to: package, "Sources/Side/Side.swift")
        // Imports in a comment or a string are no imports; `Side` is real but undeclared.
        try Self.write("""
            import Lower
            /*
            import Commented
            */
            let text = \"""
            import Quoted
            \"""
            @testable import Side
            """, to: package, "Sources/Upper/Upper.swift")
        try Self.write("Lower: only\nSide: only\nUpper: never Side\n", to: package, "rules.txt")

        let outcome = try await Self.check(["--package-path", package.path, "--rules", package.appendingPathComponent("rules.txt").path])
        #expect(outcome.status == 1, "\(outcome.errors)")
        #expect(outcome.errors.contains("""
            Sources/Upper/Upper.swift:8: Upper imports Side, which it does not declare: \
            add "Side" to its dependencies in Package.swift, or drop the import
            """), "\(outcome.errors)")
        #expect(!outcome.errors.contains("Commented") && !outcome.errors.contains("Quoted"), "\(outcome.errors)")
        // Undeclared, the import is no edge of the graph: the rule against reaching Side holds.
        #expect(!outcome.errors.contains("must never reach"), "\(outcome.errors)")
    }

    /// Runs `python3 scripts/check-modules.py arguments` on a thread of its own.
    static func check(_ arguments: [String] = []) async throws -> ChildProcess.Outcome {
        let script = BuiltExecutable.packageRoot.appendingPathComponent("scripts/check-modules.py").path
        return try await ChildProcess.runOffPool(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script] + arguments)
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-modules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func write(_ text: String, to folder: URL, _ path: String) throws {
        let file = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }
}
