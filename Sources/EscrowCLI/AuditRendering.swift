import EscrowCore
import EscrowEgress
import EscrowHost
import EscrowReports

/// How the CLI shows audit entries: tables and plain words for people, JSON for programs.
enum AuditRendering {
    /// SEQ, TIME (UTC), FLOW, APP, FUNCTION, OUTCOME, ROWS, BYTES, MS.
    static func table(_ entries: [AuditEntry], palette: Palette) -> String {
        let rows = entries.map { entry in
            [String(entry.seq), PlainWords.time(entry.time), entry.facts.flowID ?? "-", entry.facts.app,
             entry.facts.functionID, entry.facts.outcome.rawValue, String(entry.facts.rowsRead),
             String(entry.facts.bytesToCompute), PlainWords.milliseconds(entry.facts.durationMs)]
        }
        return TextTable.render(header: ["SEQ", "TIME (UTC)", "FLOW", "APP", "FUNCTION", "OUTCOME", "ROWS", "BYTES", "MS"],
                                rows: rows) { column, cell in
            column == 5 ? AuditOutcome(rawValue: cell).map { palette.paint(cell, outcome: $0) } ?? cell : cell
        }
    }

    /// Every field of an entry, one labelled line each, in plain words.
    static func text(_ entry: AuditEntry, palette: Palette) -> String {
        let facts = entry.facts
        var lines: [(String, String)] = [
            ("When", "\(PlainWords.time(entry.time)) UTC (\(entry.time))"),
            ("Dataflow", facts.flowID ?? "none (the request was refused before it became a dataflow)"),
            ("App", facts.app),
            ("Asked by", facts.caller.map { "process \($0) (through the daemon)" } ?? "this escrow's own process (CLI or embedded)"),
            ("Purpose", facts.purpose),
            ("Function", facts.functionID),
        ]
        if let module = facts.moduleSHA256 {
            lines.append(("Module", "SHA-256 \(module) (a compute module the app brought; escrow modules show \(module.prefix(12)))"))
        }
        lines += [
            ("Outcome", palette.paint(PlainWords.outcome(facts.outcome), outcome: facts.outcome)),
            ("Reason", facts.reason ?? "none"),
        ]
        let reads = PlainWords.readsByTable(facts.reads)
        lines.append(("Read", reads.first ?? "nothing"))
        lines += reads.dropFirst().map { ("", $0) }
        if let location = facts.location {
            lines.append(("Location", locationLine(location)))
        }
        lines += [
            ("Rows read", String(facts.rowsRead)),
            ("Bytes to compute", String(facts.bytesToCompute)),
            ("Where it ran", PlainWords.place(facts.destination)),
        ]
        let attempts = facts.attempts.map(attemptLine)
        if !attempts.isEmpty {
            lines.append(("Attempts", attempts[0]))
            lines += attempts.dropFirst().map { ("", $0) }
        }
        lines += [
            ("Bytes sent to server", String(facts.bytesSent)),
            ("Bytes from server", String(facts.bytesReceived)),
            ("Server latency", facts.serverLatencyMs.map { PlainWords.milliseconds($0) + " ms" } ?? "none (no server)"),
            ("Server compute", facts.serverComputeMs.map { PlainWords.milliseconds($0) + " ms of it running the function" }
                ?? "none (no server)"),
            ("Duration", PlainWords.milliseconds(facts.durationMs) + " ms"),
        ]
        let requests = facts.egress.map(requestLine)
        lines.append(("Requests", requests.first ?? "none: its code contacted nothing (or only domains you ignore)"))
        lines += requests.dropFirst().map { ("", $0) }
        lines += [
            ("Output SHA-256", facts.outputSHA256 ?? "none (no output went to the app)"),
            ("Previous hash", entry.prevHash),
            ("Hash", entry.hash),
        ]
        let width = lines.map(\.0.count).max() ?? 0
        var text = palette.paint("Audit entry \(entry.seq)", .bold) + "\n"
        // Values are escaped (DisplayText): the app id, purpose and reason came from an app.
        let palettedLabel = "Outcome"
        for (label, value) in lines {
            let value = label == palettedLabel ? value : DisplayText.escaped(value)
            let padded = label.isEmpty ? String(repeating: " ", count: width + 1)
                : label + ":" + String(repeating: " ", count: width - label.count)
            text += "  \(padded)  \(value)\n"
        }
        return text
    }

    /// One recorded request: `GET api.example.com (example.com) 200, 120 B out, 56 B in, tracker …`.
    static func requestLine(_ record: EgressRecord) -> String {
        let observation = record.observation
        var text = "\(observation.method) \(observation.host)"
        if record.domain != observation.host { text += " (\(record.domain))" }
        text += observation.blocked ? " blocked" : observation.status.map { " \($0)" } ?? " no answer"
        text += ", \(observation.bytesOut) B out, \(observation.bytesIn) B in"
        if let tracker = record.tracker { text += ", tracker (\(tracker))" }
        if observation.sentData { text += ", sent values of your data" }
        return text
    }

    /// One address a remote run tried: `10.0.0.5:7443 answered`, `10.0.0.6:7443 unreachable
    /// (connection refused): nothing was sent`, `… unanswered (…): it may have run there; not sent again`.
    static func attemptLine(_ attempt: ServerAttempt) -> String {
        let error = attempt.error.map { " (\($0))" } ?? ""
        return switch attempt.outcome {
        case .answered: "\(attempt.address) answered"
        case .unreachable: "\(attempt.address) unreachable\(error): nothing was sent"
        case .notSent: "\(attempt.address) not sent\(error): the connection broke before the call was written"
        case .declined: "\(attempt.address) declined\(error): it did not run the function"
        case .unanswered: "\(attempt.address) unanswered\(error): it may have run there"
        }
    }

    // MARK: JSON

    /// An array of entry objects, oldest first (see docs/CLI.md).
    static func json(_ entries: [AuditEntry]) -> String {
        var writer = JSONWriter.forDisplay()
        writer.array(entries) { writer, entry in writer.object { fields(of: entry, into: &$0) } }
        return writer.text
    }

    /// One entry object (see docs/CLI.md).
    static func json(_ entry: AuditEntry) -> String {
        var writer = JSONWriter.forDisplay()
        writer.object { fields(of: entry, into: &$0) }
        return writer.text
    }

    /// What a run saw of the location: "1km (radius 800 m, about 12 people; the function ran 1 time)".
    static func locationLine(_ location: AuditLocation) -> String {
        var parts: [String] = []
        if let radius = location.radius { parts.append("radius \(Int(radius.rounded())) m") }
        if let k = location.k { parts.append("an area of about \(NumberText.count(k)) \(k == 1 ? "person" : "people")") }
        parts.append(location.runs == 1 ? "the function ran once"
            : "the function ran \(location.runs) times: once on your masked location, \(location.runs - 1) times on dummy locations")
        return "\(location.accuracy) (\(parts.joined(separator: "; ")))"
    }

    static func fields(of entry: AuditEntry, into object: inout JSONWriter.ObjectWriter) {
        let facts = entry.facts
        object.field("seq", int: entry.seq)
        object.field("time", entry.time)
        object.field("flow", facts.flowID)
        object.field("app", facts.app)
        object.field("caller", facts.caller)
        object.field("purpose", facts.purpose)
        object.field("function", facts.functionID)
        object.field("moduleSHA256", facts.moduleSHA256)
        object.field("outcome", facts.outcome.rawValue)
        object.field("reason", facts.reason)
        object.field("reads", strings: facts.reads)
        object.field("rowsRead", int: facts.rowsRead)
        object.field("bytesToCompute", int: facts.bytesToCompute)
        object.field("destination", facts.destination)
        object.field("bytesSent", int: facts.bytesSent)
        object.field("bytesReceived", int: facts.bytesReceived)
        object.field("serverLatencyMs", double: facts.serverLatencyMs)
        object.field("serverComputeMs", double: facts.serverComputeMs)
        object.field("durationMs", double: facts.durationMs)
        object.field("location") { writer in
            guard let location = facts.location else { return writer.null() }
            writer.object { object in
                object.field("accuracy", location.accuracy)
                object.field("radius", double: location.radius)
                object.field("k") { writer in
                    if let k = location.k { writer.int(Int64(k)) } else { writer.null() }
                }
                object.field("runs", int: location.runs)
            }
        }
        object.field("egress") { writer in
            writer.array(facts.egress) { writer, record in
                writer.object { object in
                    let observation = record.observation
                    object.field("time", int: Int(observation.time))
                    object.field("host", observation.host)
                    object.field("domain", record.domain)
                    object.field("method", observation.method)
                    object.field("bytesOut", int: observation.bytesOut)
                    object.field("bytesIn", int: observation.bytesIn)
                    object.field("status") { writer in
                        if let status = observation.status { writer.int(Int64(status)) } else { writer.null() }
                    }
                    object.field("blocked") { $0.bool(observation.blocked) }
                    object.field("tracker", record.tracker)
                    object.field("sentData") { $0.bool(observation.sentData) }
                }
            }
        }
        object.field("attempts") { writer in
            writer.array(facts.attempts) { writer, attempt in
                writer.object { object in
                    object.field("address", attempt.address)
                    object.field("outcome", attempt.outcome.rawValue)
                    object.field("error", attempt.error)
                }
            }
        }
        object.field("outputSHA256", facts.outputSHA256)
        object.field("prevHash", entry.prevHash)
        object.field("hash", entry.hash)
    }
}
