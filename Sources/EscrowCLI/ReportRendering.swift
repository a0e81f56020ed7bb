import EscrowCore
import EscrowHost
import EscrowReports

/// The egress reports as text tables and JSON.
enum ReportRendering {
    /// A number with at most `digits` decimals, without trailing zeros.
    static func number(_ value: Double, digits: Int = 2) -> String {
        let scale = pow10(digits)
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = String(rounded)
        if let dot = text.firstIndex(of: "."), text.distance(from: dot, to: text.endIndex) > digits + 1 {
            text = String(text[..<text.index(dot, offsetBy: digits + 1)])
        }
        return text
    }

    private static func pow10(_ digits: Int) -> Double {
        (0..<digits).reduce(1) { value, _ in value * 10 }
    }

    static func percent(_ share: Double) -> String { number(share * 100, digits: 1) + " %" }

    /// The metric's value as shown.
    static func value(_ metrics: AppMetrics, _ metric: AppMetrics.Metric) -> String {
        switch metric {
        case .runs: String(metrics.runs)
        case .requests: String(metrics.requests)
        case .requestsPerMinute: number(metrics.requestsPerMinute)
        case .domains: String(metrics.domains)
        case .subdomains: String(metrics.subdomains)
        case .trackerShare: percent(metrics.trackerShare)
        }
    }

    static func heading(_ metric: AppMetrics.Metric) -> String {
        switch metric {
        case .runs: "RUNS"
        case .requests: "REQUESTS"
        case .requestsPerMinute: "REQ/MIN"
        case .domains: "DOMAINS"
        case .subdomains: "SUBDOMAINS"
        case .trackerShare: "TRACKERS"
        }
    }

    /// `escrow report apps`.
    static func table(_ metrics: [AppMetrics]) -> String {
        let metricList = AppMetrics.Metric.allCases
        return TextTable.render(
            header: ["APP"] + metricList.map(heading) + ["BLOCKED", "SENT DATA"],
            rows: metrics.map { app in
                [app.app] + metricList.map { "\(value(app, $0)) (#\(app.ranks[$0] ?? 0))" } + [String(app.blocked), String(app.sentData)]
            })
    }

    static func json(_ metrics: [AppMetrics]) -> String {
        var writer = JSONWriter.forDisplay()
        writer.array(metrics) { writer, app in write(app, to: &writer) }
        return writer.text
    }

    private static func write(_ app: AppMetrics, to writer: inout JSONWriter) {
        writer.object { object in
            object.field("app", app.app)
            object.field("runs", int: app.runs)
            object.field("requests", int: app.requests)
            object.field("computeSeconds", double: app.computeSeconds)
            object.field("requestsPerMinute", double: app.requestsPerMinute)
            object.field("domains", int: app.domains)
            object.field("subdomains", int: app.subdomains)
            object.field("trackerShare", double: app.trackerShare)
            object.field("blocked", int: app.blocked)
            object.field("sentData", int: app.sentData)
            object.field("ranks") { writer in
                writer.object { ranks in
                    for metric in AppMetrics.Metric.allCases { ranks.field(metric.rawValue, int: app.ranks[metric] ?? 0) }
                }
            }
        }
    }

    /// `escrow report compare`.
    static func text(_ comparison: AppComparison) -> String {
        var rows: [[String]] = comparison.rows.map { row in
            [heading(row.metric).lowercased()] + zip(comparison.metrics, row.ranks).map { "\(value($0, row.metric)) (#\($1))" }
                + [row.best.count == comparison.apps.count ? "all equal" : row.best.joined(separator: ", ")]
        }
        rows.append(["blocked"] + comparison.metrics.map { String($0.blocked) } + [""])
        rows.append(["sent data"] + comparison.metrics.map { String($0.sentData) } + [""])
        var text = TextTable.render(header: ["METRIC"] + comparison.apps + ["LEAST EXPOSED"], rows: rows)
        for (app, domains) in zip(comparison.apps, comparison.topDomains) {
            text += "\nmost contacted by \(DisplayText.escaped(app)):\n"
            if domains.isEmpty { text += "  nothing\n" }
            for domain in domains {
                text += "  \(DisplayText.escaped(domain.domain))  \(domain.requests) request\(domain.requests == 1 ? "" : "s")"
                    + (domain.tracker ? "  [tracker]" : "") + "\n"
            }
        }
        return text
    }

    static func json(_ comparison: AppComparison) -> String {
        var writer = JSONWriter.forDisplay()
        writer.object { object in
            object.field("apps", strings: comparison.apps)
            object.field("metrics") { writer in writer.array(comparison.metrics) { writer, app in write(app, to: &writer) } }
            object.field("leastExposed") { writer in
                writer.object { best in
                    for row in comparison.rows { best.field(row.metric.rawValue, strings: row.best) }
                }
            }
            object.field("topDomains") { writer in
                writer.array(zip(comparison.apps, comparison.topDomains)) { writer, pair in
                    writer.object { object in
                        object.field("app", pair.0)
                        object.field("domains") { writer in
                            writer.array(pair.1) { writer, domain in
                                writer.object { object in
                                    object.field("domain", domain.domain)
                                    object.field("requests", int: domain.requests)
                                    object.field("tracker") { $0.bool(domain.tracker) }
                                }
                            }
                        }
                    }
                }
            }
        }
        return writer.text
    }

    /// `escrow report cooccurrence`.
    static func table(_ scores: [CooccurrenceScore]) -> String {
        TextTable.render(
            header: ["RANK", "DOMAIN", "SCORE", "N", "MEAN Δt (s)", "TRACKER", "APPS"],
            rows: scores.enumerated().map { index, score in
                [String(index + 1), score.domain, number(score.score, digits: 3), String(score.occurrences),
                 number(score.meanDistance), score.tracker ? "yes" : "", score.apps.joined(separator: ", ")]
            })
    }

    static func json(_ scores: [CooccurrenceScore]) -> String {
        var writer = JSONWriter.forDisplay()
        writer.array(scores) { writer, score in
            writer.object { object in
                object.field("domain", score.domain)
                object.field("score", double: score.score)
                object.field("occurrences", int: score.occurrences)
                object.field("meanDistance", double: score.meanDistance)
                object.field("tracker") { $0.bool(score.tracker) }
                object.field("hosts", strings: score.hosts)
                object.field("apps", strings: score.apps)
            }
        }
        return writer.text
    }

    /// A flow as the HTML report lists it.
    static func summary(_ flow: FlowRecord) -> FlowSummary {
        FlowSummary(id: flow.id, app: flow.app, purpose: flow.purpose, functionID: flow.function.id,
                    place: PlainWords.place(flow.destination),
                    decision: PlainWords.decision(flow) + (flow.readsLocation ? "; location: \(flow.locationAccuracy.plainWords)" : ""),
                    status: flow.status.rawValue, reads: flow.reads)
    }
}
