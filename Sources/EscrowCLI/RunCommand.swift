import ArgumentParser
import EscrowCore
import EscrowHost
import Foundation

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a dataflow: access SQL, then a compute function or module; print only its output.",
        discussion: """
            Example:
              escrow run --app org.wikipedia --purpose "Articles near you" \\
                --sql "SELECT longitude, latitude FROM Location
                       ORDER BY timestamp DESC LIMIT 1" \\
                --compute location.region --param radius=1000 --json
              escrow run --app org.example.places --purpose "Your area" \
                --sql "SELECT latitude, longitude FROM Location" \
                --module bounds.wasm --param decimals=2

            --module runs a compute module (a WebAssembly file, docs/MODULES.md)
            instead of a registered function: the escrow checks it, keeps it in the
            escrow home, and the dataflow binds its SHA-256.

            A dataflow runs only once you approve it: the first run of a new one
            exits with status 2 and says how to review and approve it. A denied or
            revoked dataflow exits with status 3. With --json the output is one
            object with "columns" (the names) and "rows" (arrays of values); bytes
            are base64 strings.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "The app's id, e.g. org.example.weather.")
    var app: String

    @Option(help: "Why the app needs the data (shown to you).")
    var purpose: String

    @Option(parsing: .unconditional, help: "The access() SQL over Contact, Location and Photos (may start with a -- comment).")
    var sql: String

    @Option(help: "The registered compute function (see `escrow functions`).")
    var compute: String?

    @Option(help: ArgumentHelp("A compute module to run instead of a registered function: a .wasm file (docs/MODULES.md).",
                               valueName: "FILE"))
    var module: String?

    @Option(name: .customLong("param"), help: ArgumentHelp("A parameter for compute(), NAME=VALUE (repeatable).", valueName: "NAME=VALUE"))
    var parameters: [String] = []

    @Option(help: ArgumentHelp("Run compute() on this registered compute server (see `escrow servers`).", valueName: "ID"))
    var server: String?

    @Option(help: ArgumentHelp(
        "The location accuracy the app asks for: exact, city, region, country, or a radius such as 500m or 1km (you may lower it when you approve).",
        valueName: "ACCURACY"))
    var locationAccuracy: String?

    @Flag(help: "Print the output as JSON.")
    var json = false

    func validate() throws {
        guard (compute == nil) != (module == nil) else {
            throw ValidationError("give either --compute FUNCTION or --module FILE")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let moduleBytes = try module.map { path in
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CLIError("cannot read the module \(path): no such file, or it is not readable")
                }
                return [UInt8](data)
            }
            let values = try ComputeParameters(options: parameters)
            let accuracy = try locationAccuracy.map { text throws(LocationAccuracyError) in try LocationAccuracy(parsing: text) }
            let home = try global.escrowHome()
            let host = try EscrowHost(home: home, logger: global.logger())
            let result: RunResult
            do {
                result = try await host.run(DataflowRequest(app: app, purpose: purpose, access: sql, compute: compute ?? "",
                                                            destination: server.map(Destination.server) ?? .device,
                                                            parameters: values, locationAccuracy: accuracy,
                                                            module: moduleBytes.map(ModuleSource.bytes)))
            } catch {
                await Self.witness(host)
                throw error
            }
            await Self.witness(host)
            if json {
                print(FrameRendering.json(result.output))
            } else {
                print(FrameRendering.table(result.output), terminator: "")
                print("(\(PlainWords.count(result.output.rowCount, "row")) from \(result.flow.function); access read \(PlainWords.count(result.rowsRead, "row")); dataflow \(result.flowID), audit entry \(result.auditEntry.seq))")
            }
        }
    }

    /// Sends the audit head (the run appended an entry, whatever its outcome) to the witnesses,
    /// waiting at most a few seconds; a witness that does not countersign is a warning on
    /// standard error, never a failed run.
    static func witness(_ host: EscrowHost) async {
        let results = await host.witnessing.push(timeout: .seconds(3))
        guard results.contains(where: { $0.problem != nil }) else { return }
        var kept: [String: Int] = [:]
        do {
            for head in try host.witnessing.storedHeads() { kept[head.serverID] = head.seq }
        } catch {
            Terminal.standardError.write("escrow: warning: cannot read the heads witnesses countersigned: \(error)\n")
        }
        for result in results {
            guard let problem = result.problem else { continue }
            let unwitnessed = "unwitnessed by it since entry \(kept[result.serverID] ?? 0)"
            Terminal.standardError.write("escrow: warning: audit witness \(result.serverID) did not countersign: \(problem); the audit log is \(unwitnessed)\n")
        }
    }
}
