import ArgumentParser
import EscrowCore
import EscrowHost
import Foundation

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a dataflow: access SQL, then a registered compute function; print only its output.",
        discussion: """
            Example:
              escrow run --app org.wikipedia --purpose "Articles near you" \\
                --sql "SELECT longitude, latitude FROM Location
                       ORDER BY timestamp DESC LIMIT 1" \\
                --compute location.region --param radius=1000 --json

            With --json the output is one object with "columns" (the names)
            and "rows" (arrays of values); bytes are base64 strings.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "The app's id, e.g. org.example.weather.")
    var app: String

    @Option(help: "Why the app needs the data (shown to you).")
    var purpose: String

    @Option(help: "The access() SQL over Contact, Location and Photos.")
    var sql: String

    @Option(help: "The registered compute function (see `escrow functions`).")
    var compute: String

    @Option(name: .customLong("param"), help: ArgumentHelp("A parameter for compute(), NAME=VALUE (repeatable).", valueName: "NAME=VALUE"))
    var parameters: [String] = []

    @Flag(help: "Print the output as JSON.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let home = try global.escrowHome()
            let host = try EscrowHost(home: home, logger: global.logger())
            var values: [String: String] = [:]
            for parameter in parameters {
                guard let equals = parameter.firstIndex(of: "="), equals != parameter.startIndex else {
                    throw CLIError("--param \(parameter): expected NAME=VALUE")
                }
                values[String(parameter[..<equals])] = String(parameter[parameter.index(after: equals)...])
            }
            let result = try await host.run(app: app, purpose: purpose, access: sql, compute: compute,
                                            parameters: ComputeParameters(values))
            if json {
                print(FrameRendering.json(result.output))
            } else {
                print(FrameRendering.table(result.output), terminator: "")
                print("(\(result.output.rowCount) row\(result.output.rowCount == 1 ? "" : "s") from \(result.flow.function); access read \(result.rowsRead) rows)")
            }
        }
    }
}
