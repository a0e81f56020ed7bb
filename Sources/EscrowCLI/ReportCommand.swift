import ArgumentParser
import EscrowCore
import EscrowHost
import EscrowReports
import Foundation

/// `escrow report`: what apps' compute code did on the network.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Reports on the domains compute code contacted, per app.",
        discussion: """
            Built from the requests recorded in the audit log (as long as the
            retention setting keeps them). Rank 1 is the highest value among apps;
            apps with equal values share a rank.

            Examples:
              escrow report apps
              escrow report compare org.example.weather org.example.news
              escrow report cooccurrence doubleclick.net --window 5
              escrow report html --out report.html
            """,
        subcommands: [ReportAppsCommand.self, ReportCompareCommand.self, ReportCooccurrenceCommand.self, ReportHTMLCommand.self]
    )
}

extension GlobalOptions {
    /// The recorded egress of the escrow home, without opening the data database.
    func egressLog() throws -> EgressLog {
        EgressLog(state: try stateDatabase())
    }
}

struct ReportAppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "Per app: runs, requests, requests per minute, domains, subdomains, tracker share, ranks.",
        discussion: "Example:\n  escrow report apps --json")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print the report as a JSON array.") var json = false

    func run() async throws {
        try await reportingErrors {
            let log = try global.egressLog()
            let metrics = AppMetrics.compute(runs: try log.runs(), requests: try log.requests())
            if json {
                print(ReportRendering.json(metrics))
            } else if metrics.isEmpty {
                print("no runs recorded yet: the report fills as apps run dataflows")
            } else {
                print(ReportRendering.table(metrics), terminator: "")
                print("rank (#) among \(metrics.count) app\(metrics.count == 1 ? "" : "s"): 1 is the highest value; ties share a rank")
            }
        }
    }
}

struct ReportCompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare", abstract: "Apps side by side, with each one's most contacted domains.",
        discussion: "Example:\n  escrow report compare org.example.weather org.example.news")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Two or more app ids.") var apps: [String] = []
    @Flag(help: "Print the comparison as a JSON object.") var json = false

    func run() async throws {
        try await reportingErrors {
            let log = try global.egressLog()
            let requests = try log.requests()
            let metrics = AppMetrics.compute(runs: try log.runs(), requests: requests)
            let comparison = try AppComparison.compare(apps, in: metrics, requests: requests)
            print(json ? ReportRendering.json(comparison) : ReportRendering.text(comparison), terminator: json ? "\n" : "")
        }
    }
}

struct ReportCooccurrenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cooccurrence", abstract: "Domains contacted around the times a domain is (AppChk's ranking).",
        discussion: """
            Ranks other domains by (Δt² + T/2 + 1)/N: Δt the mean distance to the nearest
            request of DOMAIN, T the window and N the requests within it. Lower is stronger.

            Example:
              escrow report cooccurrence doubleclick.net --window 5
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The domain (a registrable domain or a host).") var domain: String
    @Option(help: ArgumentHelp("Seconds around each request: 0, 5, 15 or 30.", valueName: "T")) var window = 5
    @Option(help: "Only this app's requests.") var app: String?
    @Flag(help: "Print the ranking as a JSON array.") var json = false

    func run() async throws {
        try await reportingErrors {
            let scores = try Cooccurrence.rank(domain: domain, window: window, requests: try global.egressLog().requests(), app: app)
            if json {
                print(ReportRendering.json(scores))
            } else if scores.isEmpty {
                print(DisplayText.escaped("no other domain was contacted within \(window) s of \(domain)"))
            } else {
                print(ReportRendering.table(scores), terminator: "")
            }
        }
    }
}

struct ReportHTMLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "html", abstract: "Write a self-contained HTML transparency report (no scripts, no external files).",
        discussion: "Example:\n  escrow report html --out report.html")
    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("The file to write (replaced if it exists).", valueName: "FILE")) var out: String

    func run() async throws {
        try await reportingErrors {
            let state = try global.stateDatabase()
            let log = EgressLog(state: state)
            let requests = try log.requests()
            let metrics = AppMetrics.compute(runs: try log.runs(), requests: requests)
            let flows = try FlowStore(state: state).list().map(ReportRendering.summary)
            let report = TransparencyReport(generated: PlainWords.time(state.clock.now().text), flows: flows, apps: metrics,
                                            requests: requests)
            let url = URL(fileURLWithPath: (out as NSString).expandingTildeInPath)
            do {
                try Data(report.html().utf8).write(to: url, options: .atomic)
            } catch {
                throw CLIError("cannot write \(DisplayText.escaped(out)): \(error.localizedDescription)")
            }
            print(DisplayText.escaped("wrote \(out): \(flows.count) dataflows, \(metrics.count) apps, \(requests.count) recorded requests"))
        }
    }
}

/// `escrow export`: the recorded requests, data-minimized.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the recorded requests, minimized: no absolute time, no personal data.",
        discussion: """
            One row per app and host, with the App Privacy Report's field names where
            they fit (domain, firstTimeStamp, timeStamp, hits, bundleID, …). Dates are
            reduced to year and ISO week; times are whole seconds after the first
            exported request. Paths, queries and bodies were never recorded.

            Examples:
              escrow export > egress.ndjson
              escrow export --app org.example.weather --exclude example.org --format json
            """)
    @OptionGroup var global: GlobalOptions
    @Option(help: "Only this app's requests (an app with recorded runs).") var app: String?
    @Option(parsing: .upToNextOption,
            help: ArgumentHelp("Leave out these domains (host names, registrable domains or IP addresses) and every name under them.",
                               valueName: "DOMAIN"))
    var exclude: [String] = []
    @Option(help: "ndjson (one object per line, the default) or json.") var format: MinimizedExport.Format = .ndjson

    func run() async throws {
        try await reportingErrors {
            // A privacy option never fails silently: a --exclude that is no domain is an error
            // before anything is read, an app that never ran is an error, and an app without
            // requests or an exclusion that leaves nothing out is said on standard error.
            let excluding = try MinimizedExport.exclusions(exclude)
            let log = try global.egressLog()
            let requests = try log.requests(app: app)
            if let app, requests.isEmpty {
                let runs = try log.runs()
                guard runs.contains(where: { $0.app == app }) else {
                    throw ReportError.unknownApp(app, known: Set(runs.map(\.app)).sorted())
                }
                Self.note("\(app) made no request in the runs the audit log holds: the export is empty")
            }
            for domain in MinimizedExport.unmatched(excluding, in: requests) {
                Self.note("no exported request went to \(domain) or a name under it: --exclude \(domain) left nothing out")
            }
            print(MinimizedExport.text(requests, format: format, excluding: excluding), terminator: "")
        }
    }

    /// A line on standard error that leaves the export on standard output as it is.
    private static func note(_ text: String) {
        Terminal.standardError.write("escrow: note: \(DisplayText.escaped(text))\n")
    }
}

extension MinimizedExport.Format: ExpressibleByArgument {}
