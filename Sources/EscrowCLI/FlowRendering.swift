import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowModules
import Foundation

/// How the CLI shows dataflows: tables and plain words for people, JSON for programs.
enum FlowRendering {
    /// FLOW, STATUS, APP, FUNCTION, WHERE, READS, LOCATION, SINCE (UTC).
    static func table(_ flows: [FlowRecord], palette: Palette) -> String {
        let rows = flows.map { flow in
            [flow.id, flow.status.rawValue, flow.app, flow.isModule ? "\(flow.function.id) (module)" : flow.function.id,
             PlainWords.shortPlace(flow.destination),
             flow.tables.joined(separator: ", "), locationCell(flow), PlainWords.time(flow.decidedAt ?? flow.createdAt)]
        }
        return TextTable.render(header: ["FLOW", "STATUS", "APP", "FUNCTION", "WHERE", "READS", "LOCATION", "SINCE (UTC)"],
                                rows: rows) { column, cell in
            switch column {
            case 1: FlowStatus(rawValue: cell).map { palette.paint(cell, status: $0) } ?? cell
            case 6: cell == exactCell ? palette.paint(cell, .red) : cell
            default: cell
            }
        }
    }

    /// How `flows` shows a flow's location accuracy: prominently when exact.
    static func locationCell(_ flow: FlowRecord) -> String {
        guard flow.readsLocation else { return "-" }
        return flow.locationAccuracy == .exact ? exactCell : flow.locationAccuracy.description
    }

    static let exactCell = "your exact location"

    /// The registered function a flow names, when its id is still registered.
    static func registered(_ flow: FlowRecord) -> FunctionDescriptor? {
        EscrowFunctions.catalog.descriptors.first { $0.id == flow.function.id }
    }

    /// The flow's parameters sorted by name, or nil when the record's JSON cannot be read.
    static func parameterValues(_ flow: FlowRecord) -> [(name: String, value: String)]? {
        guard let data = flow.parametersJSON.data(using: .utf8),
              let values = try? JSONDecoder().decode([String: String].self, from: data)
        else { return nil }
        return values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    // MARK: JSON

    /// An array of flow objects (see docs/CLI.md).
    static func json(_ flows: [FlowRecord]) -> String {
        var writer = JSONWriter.forDisplay()
        writer.array(flows) { writer, flow in writer.object { object in fields(of: flow, into: &object) } }
        return writer.text
    }

    /// One flow object with its decision history and recent runs (see docs/CLI.md).
    static func json(_ flow: FlowRecord, history: [DecisionRecord], runs: [AuditEntry], contacted: [ContactedHost],
                     module: Result<ComputeModule, ModuleError>? = nil) -> String {
        var writer = JSONWriter.forDisplay()
        writer.object { object in
            fields(of: flow, into: &object)
            if let module {
                object.field("moduleCanDo", (try? module.get())?.abilities)
                object.field("moduleProblem", { if case .failure(let error) = module { error.description } else { nil } }())
            }
            object.field("history") { writer in
                writer.array(history) { writer, decision in
                    writer.object { object in
                        object.field("time", decision.time)
                        object.field("decision", decision.decision)
                        object.field("reason", decision.reason)
                    }
                }
            }
            object.field("runs") { writer in
                writer.array(runs) { writer, entry in writer.object { AuditRendering.fields(of: entry, into: &$0) } }
            }
            object.field("services") { writer in
                writer.array(declaredServices(flow, module: try? module?.get())) { writer, service in
                    writer.object { object in
                        object.field("parameter", service.name)
                        object.field("host", service.host)
                        object.field("summary", service.summary)
                    }
                }
            }
            object.field("contacted") { writer in
                writer.array(contacted) { writer, host in
                    writer.object { object in
                        object.field("host", host.host)
                        object.field("domain", host.domain)
                        object.field("tracker", host.tracker)
                        object.field("requests", int: host.requests)
                        object.field("blocked", int: host.blocked)
                        object.field("sentData", int: host.sentData)
                        object.field("runs") { writer in writer.array(host.runs) { $0.int(Int64($1)) } }
                    }
                }
            }
        }
        return writer.text
    }

    static func fields(of flow: FlowRecord, into object: inout JSONWriter.ObjectWriter) {
        object.field("id", flow.id)
        object.field("status", flow.status.rawValue)
        object.field("app", flow.app)
        object.field("purpose", flow.purpose)
        object.field("sql", flow.accessSQL)
        object.field("function") { writer in
            writer.object { function in
                function.field("id", flow.function.id)
                function.field("version", int: flow.function.version)
                function.field("digest", flow.function.codeDigest)
                function.field("summary", flow.isModule ? nil : registered(flow)?.summary)
            }
        }
        object.field("module") { writer in
            guard let bytes = flow.moduleBytes else { return writer.null() }
            writer.object { module in
                module.field("sha256", flow.function.codeDigest)
                module.field("bytes", int: bytes)
            }
        }
        object.field("parameters") { writer in
            if let values = parameterValues(flow) {
                writer.object { object in
                    for (name, value) in values { object.field(name, value) }
                }
            } else {
                writer.null()
            }
        }
        object.field("destination", flow.destination)
        object.field("program") { writer in
            if let path = flow.programPath {
                writer.object { program in
                    program.field("path", path)
                    program.field("sha256", flow.programDigest)
                }
            } else {
                writer.null()
            }
        }
        object.field("reads", strings: flow.reads)
        object.field("tables", strings: flow.tables)
        object.field("location") { writer in
            guard flow.readsLocation else { return writer.null() }
            writer.object { location in
                location.field("accuracy", flow.locationAccuracy.description)
                location.field("meaning", flow.locationAccuracy.plainWords)
                location.field("requested", flow.requestedAccuracy?.description)
                location.field("chosen", flow.chosenAccuracy?.description)
                location.field("dropped", strings: flow.locationAccuracy == .exact ? [] : LocationView.droppedLocationColumns.map { "Location.\($0)" })
            }
        }
        switch flow.approval {
        case .once?: object.field("approval", "once")
        case .always?: object.field("approval", "always")
        case .until?: object.field("approval", "until")
        case nil: object.field("approval", nil as String?)
        }
        if case .until(let seconds)? = flow.approval {
            object.field("approvedUntil", Timestamp.format(secondsSince1970: seconds))
        } else {
            object.field("approvedUntil", nil as String?)
        }
        object.field("reason", flow.reason)
        object.field("createdAt", flow.createdAt)
        object.field("decidedAt", flow.decidedAt)
    }
}
