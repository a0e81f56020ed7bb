import Crypto
import EscrowTestSupport
import Foundation
import Testing
import WAT

/// `escrow modules` and `escrow run --module`, as an individual meets compute modules: what a
/// module can do read from its imports, kept by its SHA-256, found by id or digest prefix; hostile
/// files refused with their reason; a module's dataflow shown, approved, run, listed, and its
/// module removed and brought again.
@Suite("escrow modules and escrow run --module: compute modules an app brings", .serialized)
struct ModulesCommandTests {
    static let places = "SELECT latitude, longitude FROM Location"
    static let boundsID = "example.location-bounds"
    static let cannotContact = "cannot contact anything; only its output reaches the app"

    /// The lower-case hex SHA-256 of `bytes`, computed here, not by the escrow.
    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// An initialised, empty home.
    static func emptyHome() async throws -> ScratchHome {
        let home = ScratchHome()
        let initialised = try await home.escrow("init")
        guard initialised.succeeded else {
            home.remove()
            throw SetupFailed(outcome: initialised)
        }
        return home
    }

    struct SetupFailed: Error, CustomStringConvertible {
        let outcome: EscrowProcess.Outcome
        var description: String { "could not initialise a home: \(outcome)" }
    }

    /// A folder for the module files a test writes; `remove()` it in a `defer`.
    struct ScratchFiles {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-cli-modules-\(UUID().uuidString)", isDirectory: true)

        init() throws {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        /// Writes `bytes` as the file `name`; returns its path.
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let file = url.appendingPathComponent(name)
            try Data(bytes).write(to: file)
            return file.path
        }

        func remove() {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// location-bounds with one more custom section: the same manifest, another module.
    static func rebuiltBounds() throws -> [UInt8] {
        ExampleModules.appendingSection("build", Array("rebuilt".utf8), to: try ExampleModules.bytes("location-bounds"))
    }

    /// `escrow run` of `module` (a file) over `places` with decimals=2.
    static func runBounds(_ home: ScratchHome, module: String, json: Bool = false) async throws -> EscrowProcess.Outcome {
        try await EscrowProcess.run(["--home", home.path, "run", "--app", "org.example.places", "--purpose", "The area you were in",
                                     "--sql", places, "--module", module, "--param", "decimals=2"] + (json ? ["--json"] : []))
    }

    // MARK: add, list, show

    @Test("add prints the module's id, version, SHA-256 and what its imports let it do; adding it again keeps one")
    func add() async throws {
        let home = try await Self.emptyHome()
        defer { home.remove() }
        let bounds = try ExampleModules.bytes("location-bounds"), weather = try ExampleModules.bytes("weather-swift")

        let added = try await home.escrow("modules", "add", try ExampleModules.url("location-bounds").path)
        #expect(added.succeeded, "\(added)")
        #expect(added.standardOutput.hasPrefix("added: \(Self.boundsID) version 1,"), "\(added)")
        #expect(added.standardOutput.contains("SHA-256 \(Self.sha256(bounds))"), "\(added)")
        #expect(added.outputLines.last == "it \(Self.cannotContact)", "\(added)")

        let network = try await home.escrow("modules", "add", try ExampleModules.url("weather-swift").path)
        #expect(network.succeeded, "\(network)")
        #expect(network.standardOutput.hasPrefix("added: example.weather-swift version 1,"), "\(network)")
        #expect(network.standardOutput.contains("SHA-256 \(Self.sha256(weather))"), "\(network)")
        #expect(network.outputLines.last?.hasPrefix("it may send requests to services on the network") == true, "\(network)")

        let again = try await home.escrow("modules", "add", try ExampleModules.url("location-bounds").path)
        #expect(again.succeeded, "\(again)")
        #expect(again.standardOutput.hasPrefix("already kept: \(Self.boundsID) version 1,"), "\(again)")

        let list = try await home.escrow("modules", "list")
        #expect(list.succeeded, "\(list)")
        #expect(list.outputLines.count == 3, "a header and one row per module: \(list)")
        let rows = list.outputLines.dropFirst()
        #expect(rows.first?.hasPrefix(String(Self.sha256(bounds).prefix(12))) == true, "\(list)")
        #expect(rows.first?.contains(Self.boundsID) == true && rows.first?.hasSuffix("nothing") == true, "\(list)")
        #expect(rows.last?.contains("example.weather-swift") == true && rows.last?.hasSuffix("network") == true, "\(list)")

        let json = try #require(try await home.escrow("modules", "list", "--json").jsonArray)
        #expect(json.map { $0["id"] as? String } == [Self.boundsID, "example.weather-swift"])
        #expect(json.map { $0["sha256"] as? String } == [Self.sha256(bounds), Self.sha256(weather)])
        #expect(json.map { $0["version"] as? Int } == [1, 1])
        #expect(json.map { $0["bytes"] as? Int } == [bounds.count, weather.count])
        let imports = json.map { $0["imports"] as? [String] ?? [] }
        #expect(imports.first?.contains("input_read") == true && imports.first?.contains("http_send") == false, "\(json)")
        #expect(imports.last?.contains("http_send") == true, "\(json)")
        #expect(json.map { $0["capabilities"] as? [String] } == [[], ["network"]])
        #expect(json.first?["canDo"] as? String == Self.cannotContact)
        #expect((json.last?["canDo"] as? String)?.hasPrefix("may send requests to services on the network") == true, "\(json)")
    }

    /// How an individual names a module to `escrow modules show`.
    enum Naming: String, CaseIterable, Sendable, CustomStringConvertible {
        case id, digestPrefix, digestInCapitals
        var description: String { rawValue }

        func reference(digest: String) -> String {
            switch self {
            case .id: ModulesCommandTests.boundsID
            case .digestPrefix: String(digest.prefix(6))
            case .digestInCapitals: digest.uppercased()
            }
        }
    }

    @Test("show finds a module by its id, a prefix of its digest, or its digest in capitals", arguments: Naming.allCases)
    func show(_ naming: Naming) async throws {
        let home = try await Self.emptyHome()
        defer { home.remove() }
        let digest = Self.sha256(try ExampleModules.bytes("location-bounds"))
        #expect(try await home.escrow("modules", "add", try ExampleModules.url("location-bounds").path).succeeded)
        let reference = naming.reference(digest: digest)

        let shown = try await home.escrow("modules", "show", reference)
        #expect(shown.succeeded, "\(shown)")
        for mention in ["Compute module \(Self.boundsID), version 1", "it \(Self.cannotContact)", "imports: escrow.fail, escrow.input_read",
                        "decimals: the grid the box is widened to", "SHA-256 \(digest)"] {
            #expect(shown.standardOutput.contains(mention), "\(mention) in \(shown)")
        }
        #expect(!shown.standardOutput.contains("http_send"), "\(shown)")
        let json = try #require(try await home.escrow("modules", "show", reference, "--json").jsonObject)
        #expect(json["sha256"] as? String == digest)
        #expect(json["id"] as? String == Self.boundsID)
    }

    @Test("an unknown or ambiguous module is an error saying so; show and remove change nothing",
          arguments: [("example.nothing", "no module example.nothing in the escrow home"),
                      ("0000", "no module 0000 in the escrow home"),
                      (boundsID, "example.location-bounds matches several modules")])
    func unknownOrAmbiguous(_ reference: String, _ says: String) async throws {
        let home = try await Self.emptyHome()
        defer { home.remove() }
        let files = try ScratchFiles()
        defer { files.remove() }
        let bounds = try ExampleModules.bytes("location-bounds"), rebuilt = try Self.rebuiltBounds()
        try #require(!Self.sha256(bounds).hasPrefix("0000") && !Self.sha256(rebuilt).hasPrefix("0000"))
        #expect(try await home.escrow("modules", "add", try ExampleModules.url("location-bounds").path).succeeded)
        #expect(try await home.escrow("modules", "add", try files.write("rebuilt.wasm", rebuilt)).succeeded)

        for command in ["show", "remove"] {
            let outcome = try await home.escrow("modules", command, reference)
            #expect(outcome.status == 1, "\(outcome)")
            #expect(outcome.standardOutput.isEmpty, "\(outcome)")
            #expect(outcome.standardError.contains(says), "\(outcome)")
        }
        let kept = try #require(try await home.escrow("modules", "list", "--json").jsonArray)
        #expect(Set(kept.compactMap { $0["sha256"] as? String }) == [Self.sha256(bounds), Self.sha256(rebuilt)])
    }

    // MARK: hostile files

    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: @Sendable () throws -> [UInt8]
        let says: String
        var testDescription: String { name }
    }

    static let hostile: [Hostile] = [
        Hostile(name: "a shell script", bytes: { Array("#!/bin/sh\necho hi\n".utf8) }, says: "the module is not valid WebAssembly: magic header not detected"),
        Hostile(name: "a truncated module", bytes: { Array(try ExampleModules.bytes("location-bounds").prefix(1000)) },
                says: "the module is not valid WebAssembly"),
        Hostile(name: "an import the escrow does not offer", bytes: {
            ExampleModules.withManifest(try wat2wasm("""
                (module (import "wasi_snapshot_preview1" "random_get" (func (param i32 i32) (result i32)))
                  (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))
                """), ExampleModules.manifest(id: "test.hostile"))
        }, says: "the module imports wasi_snapshot_preview1.random_get, which the escrow does not offer"),
        Hostile(name: "the id of a built-in function", bytes: {
            ExampleModules.withManifest(try wat2wasm(#"(module (memory (export "memory") 1) (func (export "escrow_run") (result i32) (i32.const 0)))"#),
                                        ExampleModules.manifest(id: "identity"))
        }, says: "the module calls itself identity, the id of a compute function built into the escrow"),
    ]

    @Test("a hostile file is refused naming the reason, by modules add and by run --module, and nothing is kept",
          arguments: hostile)
    func refused(_ hostile: Hostile) async throws {
        let home = try await Self.emptyHome()
        defer { home.remove() }
        let files = try ScratchFiles()
        defer { files.remove() }
        let path = try files.write("hostile.wasm", try hostile.bytes())

        let added = try await home.escrow("modules", "add", path)
        #expect(added.status == 1, "\(added)")
        #expect(added.standardOutput.isEmpty, "\(added)")
        #expect(added.standardError.contains(hostile.says), "\(added)")
        #expect(!added.standardError.contains("Message(text:"), "in plain words: \(added)")

        let run = try await Self.runBounds(home, module: path)
        #expect(run.status == 1, "\(run)")
        #expect(run.pendingFlow == nil, "\(run)")
        #expect(run.standardError.contains(hostile.says), "\(run)")

        #expect(try await home.escrow("modules", "list").outputLines.first?.hasPrefix("no compute modules") == true)
        #expect(try await home.escrow("modules", "list", "--json").jsonArray?.isEmpty == true)
        #expect(try await home.escrow("flows", "--json").jsonArray?.isEmpty == true, "a refused module is no flow to decide on")
    }

    // MARK: run --module

    @Test("run --module: a pending flow naming the module and what it can do; approved, it runs; removed, its next run needs it again")
    func runModule() async throws {
        let home = try await LocationAccuracyCommandTests.homeWithTrack()
        defer { home.remove() }
        let files = try ScratchFiles()
        defer { files.remove() }
        let module = try ExampleModules.url("location-bounds").path
        let digest = Self.sha256(try ExampleModules.bytes("location-bounds"))

        let pending = try await Self.runBounds(home, module: module)
        #expect(pending.status == 2, "\(pending)")
        #expect(pending.standardOutput.isEmpty, "nothing runs before the approval: \(pending)")
        let flow = try #require(pending.pendingFlow, "\(pending)")
        let shown = try await home.escrow("flows", "show", flow)
        #expect(shown.succeeded, "\(shown)")
        for mention in ["compute module \(Self.boundsID), version 1 (brought by the app, not built into the escrow)",
                        "SHA-256 \(digest)", Self.cannotContact, "decimals = 2", "escrow modules show \(digest.prefix(12))"] {
            #expect(shown.standardOutput.contains(mention), "\(mention) in \(shown)")
        }
        let shownJSON = try #require(try await home.escrow("flows", "show", flow, "--json").jsonObject)
        let named = try #require(shownJSON["module"] as? [String: Any], "\(shownJSON)")
        #expect(named["sha256"] as? String == digest)
        #expect(named["bytes"] as? Int == (try ExampleModules.bytes("location-bounds")).count)
        #expect(shownJSON["moduleCanDo"] as? String == Self.cannotContact)
        let kept = try #require(try await home.escrow("modules", "list", "--json").jsonArray)
        #expect(kept.map { $0["sha256"] as? String } == [digest], "the module the app brought is kept")

        #expect(try await home.escrow("approve", flow).succeeded)
        let ran = try await Self.runBounds(home, module: module)
        #expect(ran.succeeded, "\(ran)")
        #expect(ran.outputLines.first?.split(separator: " ").map(String.init) == ["south", "west", "north", "east", "places"], "\(ran)")
        #expect(ran.standardOutput.contains("(1 row from \(Self.boundsID)@1 (\(digest.prefix(12)));"), "\(ran)")
        #expect(ran.standardOutput.contains("dataflow \(flow)"), "\(ran)")
        let seq = try #require(ran.standardOutput.firstMatch(of: /audit entry ([0-9]+)/).map { String($0.output.1) }, "\(ran)")
        let entry = try await home.escrow("audit", "show", seq)
        #expect(entry.standardOutput.contains("Function:") && entry.standardOutput.contains(Self.boundsID), "\(entry)")
        #expect(entry.standardOutput.contains(digest), "which module ran: \(entry)")

        // The box around what the query reads, widened to two decimals, as the app gets it.
        let read = try #require(FrameJSON(try await home.runApproved(sql: Self.places, compute: "identity").standardOutput))
        let latitudes = read.column("latitude").compactMap { $0 as? Double }, longitudes = read.column("longitude").compactMap { $0 as? Double }
        let box = try #require(FrameJSON(try await Self.runBounds(home, module: module, json: true).standardOutput)?.onlyRow)
        #expect(box["south"] as? Double == (try #require(latitudes.min()) * 100).rounded(.down) / 100)
        #expect(box["west"] as? Double == (try #require(longitudes.min()) * 100).rounded(.down) / 100)
        #expect(box["north"] as? Double == (try #require(latitudes.max()) * 100).rounded(.up) / 100)
        #expect(box["east"] as? Double == (try #require(longitudes.max()) * 100).rounded(.up) / 100)
        #expect(box["places"] as? Int == latitudes.count)

        let table = try await home.escrow("flows")
        #expect(table.outputLines.contains { $0.hasPrefix(flow) && $0.contains("\(Self.boundsID) (module)") }, "\(table)")

        // Another build of the module is another module: a new flow to decide on.
        let rebuilt = try await Self.runBounds(home, module: try files.write("rebuilt.wasm", try Self.rebuiltBounds()))
        #expect(rebuilt.status == 2, "\(rebuilt)")
        #expect(rebuilt.pendingFlow != nil && rebuilt.pendingFlow != flow, "\(rebuilt)")

        let removed = try await home.escrow("modules", "remove", digest)
        #expect(removed.succeeded, "\(removed)")
        #expect(removed.standardOutput == "removed \(Self.boundsID) version 1 (SHA-256 \(digest))\n", "\(removed)")
        let left = try #require(try await home.escrow("modules", "list", "--json").jsonArray)
        #expect(!left.contains { $0["sha256"] as? String == digest }, "\(left)")
        let missing = try await home.escrow("flows", "show", flow)
        #expect(missing.succeeded, "\(missing)")
        #expect(missing.standardOutput.contains("its next run needs the module again"), "\(missing)")
        #expect(missing.standardOutput.contains("SHA-256 \(digest)"), "the flow still names its module: \(missing)")
        let missingJSON = try #require(try await home.escrow("flows", "show", flow, "--json").jsonObject)
        #expect((missingJSON["moduleProblem"] as? String)?.contains("no module \(digest) in the escrow home") == true, "\(missingJSON)")
        #expect(missingJSON["moduleCanDo"] is NSNull, "\(missingJSON)")

        // The app brings it again: the approved flow runs, with no new decision.
        let brought = try await Self.runBounds(home, module: module)
        #expect(brought.succeeded, "\(brought)")
        #expect(brought.standardOutput.contains("dataflow \(flow)"), "\(brought)")
        #expect(try await home.escrow("flows", "show", flow).standardOutput.contains(Self.cannotContact))
    }

    @Test("a module that imports the network function is shown as one that may send requests, to the services its parameters name")
    func networkModule() async throws {
        let home = try await Self.emptyHome()
        defer { home.remove() }
        let digest = Self.sha256(try ExampleModules.bytes("weather-swift"))
        let pending = try await EscrowProcess.run([
            "--home", home.path, "run", "--app", "org.example.weather", "--purpose", "Weather where you are",
            "--sql", "SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 1",
            "--module", try ExampleModules.url("weather-swift").path, "--param", "service=https://api.weather.example.com",
        ])
        let flow = try #require(pending.pendingFlow, "\(pending)")
        let shown = try await home.escrow("flows", "show", flow)
        for mention in ["compute module example.weather-swift, version 1", "SHA-256 \(digest)",
                        "may send requests to services on the network, only through the escrow", "api.weather.example.com"] {
            #expect(shown.standardOutput.contains(mention), "\(mention) in \(shown)")
        }
        #expect(!shown.standardOutput.contains(Self.cannotContact), "\(shown)")
        let json = try #require(try await home.escrow("flows", "show", flow, "--json").jsonObject)
        #expect((json["moduleCanDo"] as? String)?.hasPrefix("may send requests to services on the network") == true, "\(json)")
        let table = try await home.escrow("flows")
        #expect(table.outputLines.contains { $0.hasPrefix(flow) && $0.contains("example.weather-swift (module)") }, "\(table)")
    }

    @Test("a module file changed in the home is never run; the other modules stay listed, and the home can be repaired")
    func damagedFile() async throws {
        let home = try await Self.emptyHome()
        defer { home.remove() }
        let bounds = try ExampleModules.url("location-bounds").path
        let digest = Self.sha256(try ExampleModules.bytes("location-bounds"))
        #expect(try await home.escrow("modules", "add", bounds).succeeded)
        #expect(try await home.escrow("modules", "add", try ExampleModules.url("weather-swift").path).succeeded)
        let file = home.url.appendingPathComponent("modules/\(digest).wasm")
        let damage = { try Data("damaged".utf8).write(to: file) }

        try damage()
        let shown = try await home.escrow("modules", "show", digest)
        #expect(shown.status == 1, "a damaged module is refused, never shown as kept: \(shown)")
        #expect(shown.standardError.contains("is damaged: its file in the escrow home holds other bytes now"), "\(shown)")
        let list = try await home.escrow("modules", "list", "--json")
        #expect(list.succeeded, "\(list)")
        #expect(list.jsonArray?.contains { $0["id"] as? String == "example.weather-swift" } == true, "\(list)")

        let removed = try await home.escrow("modules", "remove", digest)
        #expect(removed.succeeded, "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: file.path), "\(removed)")

        try damage()
        let again = try await home.escrow("modules", "add", bounds)
        #expect(again.succeeded, "\(again)")
        let repaired = try await home.escrow("modules", "show", digest)
        #expect(!again.standardOutput.hasPrefix("already kept"), "\(again)")
        #expect(repaired.succeeded, "adding the module again repairs it: \(repaired)")
    }

    @Test("remove --json names the module removed, or the damaged file; nothing on standard output when there is none")
    func removeJSON() async throws {
        let home = try await Self.emptyHome()
        defer { home.remove() }
        let boundsDigest = Self.sha256(try ExampleModules.bytes("location-bounds"))
        let weatherDigest = Self.sha256(try ExampleModules.bytes("weather-swift"))
        #expect(try await home.escrow("modules", "add", try ExampleModules.url("location-bounds").path).succeeded)
        #expect(try await home.escrow("modules", "add", try ExampleModules.url("weather-swift").path).succeeded)

        let removed = try await home.escrow("modules", "remove", Self.boundsID, "--json")
        #expect(removed.succeeded, "\(removed)")
        let json = try #require(removed.jsonObject, "\(removed)")
        #expect(json["sha256"] as? String == boundsDigest)
        #expect(json["id"] as? String == Self.boundsID)
        #expect(json["version"] as? Int == 1)
        #expect(json["damaged"] as? Bool == false)
        #expect(json.count == 4, "\(json)")

        // A damaged file has no id or version to tell: null, and damaged true.
        try Data("damaged".utf8).write(to: home.url.appendingPathComponent("modules/\(weatherDigest).wasm"))
        let damaged = try #require(try await home.escrow("modules", "remove", weatherDigest, "--json").jsonObject)
        #expect(damaged["sha256"] as? String == weatherDigest)
        #expect(damaged["id"] is NSNull && damaged["version"] is NSNull, "\(damaged)")
        #expect(damaged["damaged"] as? Bool == true)
        #expect(try await home.escrow("modules", "list", "--json").jsonArray?.isEmpty == true)

        let missing = try await home.escrow("modules", "remove", Self.boundsID, "--json")
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.standardOutput.isEmpty, "\(missing)")
        #expect(missing.standardError.contains("no module \(Self.boundsID) in the escrow home"), "\(missing)")
    }

    @Test("run takes a function or a module, not both and not neither", arguments: [["--compute", "identity", "--module", "m.wasm"], []])
    func functionOrModule(_ compute: [String]) async throws {
        let home = try await Self.emptyHome()
        defer { home.remove() }
        let outcome = try await EscrowProcess.run(["--home", home.path, "run", "--app", "org.example.places", "--purpose", "The area",
                                                   "--sql", Self.places] + compute)
        #expect(!outcome.succeeded && outcome.status != 2, "\(outcome)")
        #expect(outcome.standardError.contains("give either --compute FUNCTION or --module FILE"), "\(outcome)")
        #expect(try await home.escrow("flows", "--json").jsonArray?.isEmpty == true)
    }

    // MARK: limits

    struct Limit: Sendable, CustomTestStringConvertible {
        let name: String
        let refused: String
        let takes: String
        let byDefault: String
        var testDescription: String { "\(name) \(refused)" }
    }

    @Test("a module limit outside its range is refused saying what it takes, and the limit stays", arguments: [
        Limit(name: "modules.fuel", refused: "5", takes: "a whole number of instructions from 1000000 to 1000000000000", byDefault: "2000000000"),
        Limit(name: "modules.memory-mb", refused: "0", takes: "a whole number of MiB from 1 to 4096", byDefault: "64"),
        Limit(name: "modules.wall-time-ms", refused: "ten", takes: "a whole number of milliseconds from 10 to 600000", byDefault: "10000"),
    ])
    func limitRefused(_ limit: Limit) async throws {
        let home = try await Self.emptyHome()
        defer { home.remove() }
        let set = try await home.escrow("config", "set", limit.name, limit.refused)
        #expect(set.status == 1, "\(set)")
        #expect(set.standardOutput.isEmpty, "\(set)")
        #expect(set.standardError.contains("\(limit.name) must be \(limit.takes), not '\(limit.refused)'"), "\(set)")
        #expect(try await home.escrow("config", "get", limit.name).outputLines == [limit.byDefault])
    }
}
