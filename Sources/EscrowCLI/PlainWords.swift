import EscrowCore
import EscrowHost
import Foundation

/// The escrow's records in words a non-technical person reads easily.
enum PlainWords {
    /// `2026-05-01T12:34:56.789Z` → `2026-05-01 12:34:56` (UTC; say so in the header or after).
    static func time(_ timestamp: String) -> String {
        guard timestamp.count >= 19 else { return timestamp }
        return String(timestamp.prefix(19)).replacingOccurrences(of: "T", with: " ")
    }

    /// `device` → `on this device`, `server:X` → `on compute server X`.
    static func place(_ destination: String) -> String {
        destination.hasPrefix("server:") ? "on compute server \(destination.dropFirst(7))" : "on this device"
    }

    /// `device` → `device`, `server:X` → `server X`: the short form for tables.
    static func shortPlace(_ destination: String) -> String {
        destination.hasPrefix("server:") ? "server \(destination.dropFirst(7))" : destination
    }

    /// The flow's decision as a phrase: "approved, always (until you revoke it)".
    static func decision(_ flow: FlowRecord) -> String {
        switch flow.status {
        case .pending: return "pending: waiting for your decision"
        case .approved: return "approved, " + approval(flow.approval ?? .always)
        case .denied: return "denied" + (flow.reason.map { " (reason: \($0))" } ?? "")
        case .revoked: return "revoked: the app's runs are refused"
        }
    }

    /// "always, until you revoke it", "once, for the next run only", "until 2026-12-31 00:00:00 UTC".
    static func approval(_ approval: Approval) -> String {
        switch approval {
        case .always: "always, until you revoke it"
        case .once: "once, for the next run only"
        case .until(let seconds): "until \(time(Timestamp.format(secondsSince1970: seconds))) UTC"
        }
    }

    /// Where a flow's location accuracy comes from, after a dash: the app's ask, the
    /// individual's choice, or the default.
    static func accuracyNote(_ flow: FlowRecord) -> String {
        switch (flow.requestedAccuracy, flow.chosenAccuracy) {
        case (nil, nil):
            " — the default; lower it with `escrow approve \(flow.id) --location-accuracy city` (or region, country, 1km…)"
        case (_?, nil):
            " — as the app asked"
        case (nil, _?):
            " — your choice"
        case (let asked?, let chosen?):
            chosen.isCoarser(than: asked) ? " — you lowered it from the app's ask (\(asked))"
                : asked == chosen ? " — as the app asked, and your choice"
                : " — the app asked for no more than \(asked)"
        }
    }

    /// What an audit outcome means.
    static func outcome(_ outcome: AuditOutcome) -> String {
        switch outcome {
        case .ok: "ok: the function ran and its output went to the app"
        case .pending: "pending: the dataflow awaited your decision, nothing ran"
        case .denied: "denied: you refused the dataflow, nothing ran"
        case .revoked: "revoked: you withdrew the approval, nothing ran"
        case .failed: "failed: nothing was given to the app"
        }
    }

    /// The columns read, grouped by table: `Location: latitude, longitude`; `Table.*` is the whole
    /// table.
    static func readsByTable(_ reads: [String]) -> [String] {
        var tables: [String: [String]] = [:]
        for read in reads {
            let parts = read.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            tables[parts[0], default: []].append(parts[1])
        }
        return tables.keys.sorted().map { table in
            let columns = tables[table] ?? []
            let named = columns.filter { $0 != "*" }
            var text = "\(table): "
            if named.isEmpty {
                text += "the whole table (e.g. counting rows)"
            } else {
                text += named.joined(separator: ", ")
                if columns.contains("*") { text += ", and the whole table (e.g. counting rows)" }
            }
            return text
        }
    }

    /// `1 row`, `3 rows`; `1 entry`, `3 entries` with the plural given.
    static func count(_ value: Int, _ noun: String, plural: String? = nil) -> String {
        "\(value) \(value == 1 ? noun : plural ?? noun + "s")"
    }

    /// Milliseconds with two decimals.
    static func milliseconds(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        let whole = Int(hundredths / 100)
        let fraction = Int(hundredths) % 100
        return "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
