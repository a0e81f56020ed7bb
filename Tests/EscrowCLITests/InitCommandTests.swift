import Foundation
import Testing

@Suite("escrow init and choosing the home")
struct InitCommandTests {
    @Test("init creates the home, private to the user, and can run again")
    func initCreatesHome() async throws {
        let home = ScratchHome()
        defer { home.remove() }

        let first = try await home.escrow("init")
        #expect(first.succeeded, "\(first)")
        #expect(first.standardOutput.contains(home.path), "\(first)")

        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: home.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        let permissions = try FileManager.default.attributesOfItem(atPath: home.path)[.posixPermissions] as? Int
        #expect(permissions == 0o700)

        let second = try await home.escrow("init")
        #expect(second.succeeded, "\(second)")
        #expect(second.standardOutput.contains(home.path), "\(second)")
        let permissionsAfter = try FileManager.default.attributesOfItem(atPath: home.path)[.posixPermissions] as? Int
        #expect(permissionsAfter == 0o700)
    }

    enum HomePlacement: String, CaseIterable, CustomTestStringConvertible {
        case beforeCommand, afterCommand
        var testDescription: String { rawValue }

        /// `escrow --home DIR <command…>` or `escrow <command…> --home DIR`.
        func arguments(home: String, _ command: [String]) -> [String] {
            switch self {
            case .beforeCommand: ["--home", home] + command
            case .afterCommand: command + ["--home", home]
            }
        }
    }

    @Test("--home works before and after the command name", arguments: HomePlacement.allCases)
    func homePlacement(_ placement: HomePlacement) async throws {
        let home = ScratchHome()
        defer { home.remove() }

        let initialize = try await EscrowProcess.run(placement.arguments(home: home.path, ["init"]))
        #expect(initialize.succeeded, "\(initialize)")
        #expect(initialize.standardOutput.contains(home.path), "\(initialize)")

        let imported = try await EscrowProcess.run(placement.arguments(home: home.path, ["import", "contacts", SampleData.contacts]))
        #expect(imported.succeeded, "\(imported)")

        let run = placement.arguments(home: home.path, [
            "run", "--app", "org.example.cli-tests", "--purpose", "Count",
            "--sql", "SELECT count(*) AS n FROM Contact", "--compute", "identity", "--json",
        ])
        let pending = try await EscrowProcess.run(run)
        #expect(pending.status == 2, "\(pending)")
        let flow = try #require(pending.pendingFlow, "\(pending)")
        let approved = try await EscrowProcess.run(placement.arguments(home: home.path, ["approve", flow]))
        #expect(approved.succeeded, "\(approved)")

        let counted = try await EscrowProcess.run(run)
        #expect(counted.succeeded, "\(counted)")
        let frame = try #require(FrameJSON(counted.standardOutput), "\(counted)")
        #expect(frame.onlyRow?["n"] as? Int == (try SampleData.contactCount()))
    }

    @Test("ESCROW_HOME works instead of --home")
    func environmentHome() async throws {
        let home = ScratchHome()
        defer { home.remove() }
        let environment = ["ESCROW_HOME": home.path]

        let initialize = try await EscrowProcess.run(["init"], environment: environment)
        #expect(initialize.succeeded, "\(initialize)")
        #expect(initialize.standardOutput.contains(home.path), "\(initialize)")
        #expect(FileManager.default.fileExists(atPath: home.path))

        let imported = try await EscrowProcess.run(["import", "contacts", SampleData.contacts], environment: environment)
        #expect(imported.succeeded, "\(imported)")
    }

    @Test("--home wins over ESCROW_HOME")
    func optionOverridesEnvironment() async throws {
        let chosen = ScratchHome()
        let other = ScratchHome()
        defer {
            chosen.remove()
            other.remove()
        }
        let outcome = try await EscrowProcess.run(["--home", chosen.path, "init"], environment: ["ESCROW_HOME": other.path])
        #expect(outcome.succeeded, "\(outcome)")
        #expect(FileManager.default.fileExists(atPath: chosen.path))
        #expect(!FileManager.default.fileExists(atPath: other.path))
    }

    @Test("no home at all is an error that says how to choose one")
    func noHome() async throws {
        let outcome = try await EscrowProcess.run(["init"])
        #expect(outcome.status != 0, "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
        #expect(outcome.standardError.contains("--home"), "\(outcome)")
        #expect(outcome.standardError.contains("ESCROW_HOME"), "\(outcome)")
    }
}
