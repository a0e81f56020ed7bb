import EscrowCore
import EscrowEgress
import EscrowFunctions
import EscrowHost
import EscrowModules
import EscrowStore
import Foundation

extension FlowRendering {
    /// `escrow flows show`: the dataflow in plain words, for the person who decides.
    ///
    /// What it reads is the lineage the escrow computes from the SQL now (`check`), not what the
    /// record says, and a record whose fields no longer give its key is shown with a warning.
    static func text(_ flow: FlowRecord, check: Check, history: [DecisionRecord], runs: [AuditEntry],
                     contacted: [ContactedHost], palette: Palette) -> String {
        var text = palette.paint("Dataflow \(flow.id)", .bold) + ", " + palette.paint(PlainWords.decision(flow), status: flow.status) + "\n\n"
        for warning in check.warnings {
            text += palette.paint("Warning: ", .red) + warning + "\n"
        }
        if !check.warnings.isEmpty { text += "\n" }
        // Every line is escaped (DisplayText) as it is written, except those rendered here
        // already: an app's text cannot move the cursor, reorder or hide what follows.
        func section(_ title: String, _ lines: [String], rendered: Bool = false) {
            text += palette.paint(title, .bold) + "\n"
            for line in lines { text += "  \(rendered ? line : DisplayText.escaped(line))\n" }
            text += "\n"
        }
        section("Which app", [flow.app, flow.programPath == nil
            ? "(as declared; asked through this escrow's command line or an embedded escrow)"
            : "(as the program below declares it: the escrow cannot verify app ids, so a decision holds for that program only)"])
        section("Which program asks", program(flow, history: history))
        section("Why (the app's stated purpose)", [flow.purpose])
        section("What it reads", PlainWords.readsByTable(check.reads))
        if flow.readsLocation {
            section("Your location", location(flow, palette: palette), rendered: true)
        }
        section("The query (SQL, as it runs)", query(flow), rendered: true)
        section("Which code", flow.isModule ? moduleCode(flow, check: check, palette: palette) : code(flow), rendered: flow.isModule)
        section("Parameters", parameters(flow))
        section("Where it runs", [PlainWords.place(flow.destination)])
        section("What leaves the device", leaves(flow, module: check.module, contacted: contacted, palette: palette), rendered: true)
        section("Decision", decision(flow, history: history))
        section("Last runs", lastRuns(runs, palette: palette), rendered: true)
        section("What you can do", commands(flow))
        return String(text.dropLast())
    }

    private static func code(_ flow: FlowRecord) -> [String] {
        var lines = ["\(flow.function.id), version \(flow.function.version)"]
        if let registered = registered(flow) {
            lines.append("what it does: \(registered.summary)")
            if registered.version != flow.function.version || registered.codeDigest != flow.function.codeDigest {
                lines.append("note: the code registered now differs; a run of it is a new dataflow")
            }
        } else {
            lines.append("note: this function is no longer registered on this escrow")
        }
        lines.append("code digest (SHA-256): \(flow.function.codeDigest)")
        return lines
    }

    /// A compute module's flow: the module, its digest and size, and what its imports let it do.
    private static func moduleCode(_ flow: FlowRecord, check: Check, palette: Palette) -> [String] {
        var lines = [DisplayText.escaped("compute module \(flow.function.id), version \(flow.function.version) (brought by the app, not built into the escrow)")]
        lines.append("SHA-256 \(flow.function.codeDigest), \(PlainWords.count(flow.moduleBytes ?? 0, "byte"))")
        switch check.module {
        case .success(let module)?:
            lines.append(palette.paint("what it can do", .bold) + " (from what it imports, not from what it claims): "
                + (module.contactsNetwork ? palette.paint(module.abilities, .red) : module.abilities))
            lines.append(DisplayText.escaped("what it says it does: \(module.manifest.summary)"))
        case .failure(let error)?:
            lines.append(palette.paint("note: ", .red) + DisplayText.escaped("\(error); its next run needs the module again"))
        case nil:
            break
        }
        lines.append("(any change to the module is another module and a new dataflow; details: escrow modules show \(flow.function.codeDigest.prefix(12)))")
        return lines
    }

    /// What the escrow computes of a flow record when it is shown, against what the record says.
    struct Check {
        /// The compute module a module's flow runs, read from the escrow home (nil for a flow of a
        /// built-in function).
        let module: Result<ComputeModule, ModuleError>?
        /// The columns the SQL reads: its lineage computed now, or the recorded one when the SQL
        /// no longer compiles against the home (a warning says so).
        let reads: [String]
        let warnings: [String]

        init(_ flow: FlowRecord, home: EscrowHome) {
            var warnings: [String] = []
            if flow.identityKey != flow.key {
                warnings.append("this record was changed outside the escrow: its app, purpose, SQL, code or parameters "
                    + "are not those of the flow a decision applies to. Do not approve it; run `escrow audit verify`.")
            }
            do {
                let lineage = try GuardedConnection(home: home).lineage(of: flow.accessSQL)
                reads = lineage.sorted.map(\.description)
                if Set(reads) != Set(flow.reads) {
                    warnings.append("the recorded columns differ from what the SQL reads; shown: what the SQL reads.")
                }
            } catch {
                reads = flow.reads
                warnings.append("the SQL no longer compiles here (\(error)); shown: the columns recorded when it was new.")
            }
            self.warnings = warnings.map { DisplayText.escaped($0) }
            module = flow.isModule ? Result { () throws(ModuleError) in
                try ModuleStore(home: home, catalog: EscrowFunctions.catalog).module(flow.function.codeDigest)
            } : nil
        }
    }

    /// The statement the escrow runs, laid out and escaped by `SQLDisplay`.
    private static func query(_ flow: FlowRecord) -> [String] {
        var lines = SQLDisplay.lines(flow.accessSQL)
        if SQLDisplay.hasComments(flow.accessSQL) {
            lines.append("(the app's comments are left out: they do not run)")
        }
        return lines
    }

    private static func program(_ flow: FlowRecord, history: [DecisionRecord]) -> [String] {
        guard let path = flow.programPath else { return ["not recorded (not asked through the daemon)"] }
        var lines = [path, "SHA-256 of its executable: \(flow.programDigest ?? "unknown")"]
        if history.last?.decision.hasPrefix("program changed") == true {
            lines.append("it changed since your last decision (another executable at the same path):")
            lines.append("approve again only if you updated this program yourself")
        }
        return lines
    }

    private static func parameters(_ flow: FlowRecord) -> [String] {
        guard let values = parameterValues(flow) else { return ["(the record cannot be read: \(flow.parametersJSON))"] }
        if values.isEmpty { return ["none"] }
        return values.map { "\($0.name) = \($0.value)" }
    }

    /// Where the data and what is made of it go: the app, a compute server, and every host the
    /// function's code may contact (from its declared service parameters) or did contact (recorded).
    /// Lines are rendered here: each text from a record is escaped as it is placed.
    private static func leaves(_ flow: FlowRecord, module: Result<ComputeModule, ModuleError>?, contacted: [ContactedHost],
                               palette: Palette) -> [String] {
        var lines: [String] = []
        func line(_ text: String) { lines.append(DisplayText.escaped(text)) }
        if flow.destination.hasPrefix("server:") {
            line("the data it reads goes to \(PlainWords.place(flow.destination).dropFirst(3)), which the escrow controls")
        }
        if flow.function.id == "identity" {
            line("the data the query selects goes to the app itself, unchanged")
            line("(the identity function passes it through: approve only if you would hand it over)")
        } else {
            line("the output of \(flow.function.id) goes to the app")
        }
        let loaded = try? module?.get()
        let services = declaredServices(flow, module: loaded)
        if let loaded, !loaded.contactsNetwork {
            line("its module imports no network function: it cannot contact anything; only its output reaches the app")
            return lines
        }
        if loaded != nil, services.isEmpty {
            line("its module imports the escrow's network function: it may send requests to any service, each recorded, blocked domains refused")
        }
        if flow.isModule && loaded == nil {
            line("its module is not in this escrow home now, so what it can contact cannot be read from it")
        }
        if services.isEmpty && contacted.isEmpty {
            if flow.function.id != "identity" && !flow.isModule {
                line("its code takes no service to contact: nothing else leaves the device" + (flow.destination.hasPrefix("server:") ? " or the server" : ""))
            }
            return lines
        }
        if !services.isEmpty {
            line("its code may send requests to these services (the parameters you approve with it):")
            for service in services {
                line("  \(service.host)  (\(service.name): \(service.summary))")
            }
        }
        if contacted.isEmpty {
            line("contacted so far: nothing (it has not run, or made no request)")
        } else {
            let requests = contacted.reduce(0) { $0 + $1.requests }
            line("contacted so far (\(PlainWords.count(requests, "request"))):")
            for host in contacted {
                var text = "  " + DisplayText.escaped(host.host)
                if host.domain != host.host { text += DisplayText.escaped(" (\(host.domain))") }
                text += "  \(PlainWords.count(host.requests, "request")) in " + runList(host.runs)
                if let tracker = host.tracker { text += "  " + palette.paint("tracker", .red) + DisplayText.escaped(" (\(tracker))") }
                if host.blocked > 0 { text += "  " + palette.paint("\(host.blocked) blocked", .bold) }
                if host.sentData > 0 { text += "  " + palette.paint("sent values of your data", .red) + " (\(host.sentData)×)" }
                lines.append(text)
            }
            if contacted.contains(where: { $0.sentData > 0 }) {
                line("(\"sent values of your data\": a value it read appeared in the request as is; encoded or hashed data is not seen)")
            }
        }
        return lines
    }

    /// The runs as `run 12` or `runs 3, 5, 9` (at most eight named).
    private static func runList(_ runs: [Int]) -> String {
        let named = runs.suffix(8).map(String.init).joined(separator: ", ")
        return (runs.count == 1 ? "run " : "runs ") + (runs.count > 8 ? "…, " : "") + named
    }

    /// The services the flow's function declares it sends requests to, with the host each
    /// approved parameter names.
    static func declaredServices(_ flow: FlowRecord, module: ComputeModule? = nil) -> [(name: String, host: String, summary: String)] {
        let declarations: [ParameterDeclaration]
        if flow.isModule {
            // A module's service parameters are its claim; whether it can send anything at all is
            // read from its imports.
            guard let module, module.contactsNetwork else { return [] }
            declarations = module.manifest.parameters
        } else {
            guard let function = try? EscrowFunctions.catalog.function(flow.function.id) else { return [] }
            declarations = function.parameters
        }
        let values = parameterValues(flow) ?? []
        return declarations.filter(\.namesAService).compactMap { declaration in
            guard let value = values.first(where: { $0.name == declaration.name })?.value else { return nil }
            let host = RequestURL(value)?.hostName.text ?? value
            return (declaration.name, host, declaration.summary)
        }
    }

    /// How precisely the flow sees where the individual is, and what that means.
    private static func location(_ flow: FlowRecord, palette: Palette) -> [String] {
        let accuracy = flow.locationAccuracy
        let gets = "the app gets \(accuracy.plainWords) (\(accuracy))"
        var lines = [(accuracy == .exact ? palette.paint(gets, .red) : palette.paint(gets, .bold))
            + DisplayText.escaped(PlainWords.accuracyNote(flow))]
        switch accuracy {
        case .exact:
            return lines
        case .radius:
            lines.append("a point at least the minimum distance and at most the radius from you (`escrow config get location.minimum-percent`),")
            lines.append("the same while you stay in a place, however often the app asks: asking again cannot average it away;")
            lines.append("where fewer people than `escrow config get location.k` live within it, the function also runs on dummy locations")
        case .city, .region, .country:
            lines.append("the coordinates of that centre, from GeoNames' places (docs/LOCATION.md)")
        }
        lines.append("photos' coordinates the same way; dropped: " + LocationView.droppedLocationColumns.joined(separator: ", ")
            + (accuracy.isCoarser(than: .radius(meters: LocationAccuracy.maximumRadius)) ? "; horizontalAccuracy is empty" : "; horizontalAccuracy holds the radius"))
        return lines
    }

    private static func decision(_ flow: FlowRecord, history: [DecisionRecord]) -> [String] {
        var lines = [PlainWords.decision(flow)]
        if let decided = flow.decidedAt { lines[0] += " (since \(PlainWords.time(decided)) UTC)" }
        lines.append("history:")
        lines += history.map { decision in
            "  \(PlainWords.time(decision.time)) UTC  \(decision.decision)" + (decision.reason.map { ": \($0)" } ?? "")
        }
        return lines
    }

    private static func lastRuns(_ runs: [AuditEntry], palette: Palette) -> [String] {
        guard !runs.isEmpty else { return ["none yet"] }
        let rows = runs.map { entry in
            [String(entry.seq), PlainWords.time(entry.time), entry.facts.outcome.rawValue,
             String(entry.facts.rowsRead), PlainWords.milliseconds(entry.facts.durationMs)]
        }
        let table = TextTable.render(header: ["SEQ", "TIME (UTC)", "OUTCOME", "ROWS", "MS"], rows: rows) { column, cell in
            column == 2 ? AuditOutcome(rawValue: cell).map { palette.paint(cell, outcome: $0) } ?? cell : cell
        }
        return table.split(separator: "\n").map(String.init) + ["(details: escrow audit show SEQ)"]
    }

    private static func commands(_ flow: FlowRecord) -> [String] {
        let id = flow.id
        var commands: [(String, String)] = []
        if flow.status != .approved || flow.approval != .always {
            commands.append(("escrow approve \(id)", "allow it until you revoke it"))
        }
        commands.append(("escrow approve \(id) --once", "allow the next run only"))
        commands.append(("escrow approve \(id) --until DATE", "allow it until DATE (a date: the end of that day, UTC)"))
        if flow.readsLocation {
            commands.append(("escrow approve \(id) --location-accuracy city", "let it see only your city (or region, country, 1km…)"))
        }
        if flow.status == .approved {
            commands.append(("escrow revoke \(id)", "stop it from running again"))
        }
        if flow.status != .denied {
            commands.append(("escrow deny \(id) --reason TEXT", "refuse it, telling the app why"))
        }
        let width = commands.map(\.0.count).max() ?? 0
        return commands.map { $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
    }
}
