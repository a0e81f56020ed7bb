extension TransparencyReport {
    /// The dataflows table: what each flow reads, where it runs, and its decision.
    func writeFlows(to page: inout String) {
        page += "<section id=\"flows\">\n<h2>Dataflows and their decisions</h2>\n"
        guard !flows.isEmpty else {
            page += "<p class=\"empty\">No dataflows recorded yet.</p>\n</section>\n"
            return
        }
        page += """
            <table class="flows">
            <thead><tr><th>Dataflow</th><th>App</th><th>Purpose</th><th>Where it runs</th><th>Reads</th>\
            <th>Decision</th></tr></thead>
            <tbody>

            """
        for flow in flows {
            page += "<tr><td>\(Self.code(flow.id))<br><small>function \(Self.code(flow.functionID))</small></td>"
            page += "<td>\(Self.dotted(flow.app))</td>"
            page += "<td>\(HTMLText.escaped(flow.purpose))</td>"
            page += "<td>\(HTMLText.escaped(flow.place))</td><td>"
            page += flow.reads.isEmpty ? "nothing" : flow.reads.map(Self.code).joined(separator: "<br>")
            page += "</td><td><span class=\"status \(Self.statusClass(flow.status))\">"
            page += "\(HTMLText.escaped(flow.decision))</span></td></tr>\n"
        }
        page += "</tbody>\n</table>\n</section>\n"
    }

    /// An identifier or a column name in code type, with a line break allowed after each dot.
    static func code(_ text: String) -> String {
        "<code>" + dotted(text) + "</code>"
    }

    /// The text escaped, with a line break allowed after each dot (`com.example.<wbr>weather`), so
    /// a narrow column breaks a name between its labels rather than inside one.
    static func dotted(_ text: String) -> String {
        // Escaped text holds no markup and its character references no dot, so the breaks are safe.
        HTMLText.escaped(text).replacing(".", with: ".<wbr>")
    }

    /// The style class of a decision's status: one of a fixed set, never the status text itself.
    static func statusClass(_ status: String) -> String {
        switch status {
        case "approved", "pending", "denied", "revoked": status
        default: "other"
        }
    }

    /// The per-app metrics table, each ranked metric with the app's rank.
    func writeAppMetrics(to page: inout String) {
        page += "<section id=\"apps\">\n<h2>What each app&#39;s compute code did on the network</h2>\n"
        guard !apps.isEmpty else {
            page += "<p class=\"empty\">No app has run a dataflow yet.</p>\n</section>\n"
            return
        }
        page += """
            <table class="metrics">
            <thead><tr><th>App</th><th class="num">Runs</th><th class="num">Requests</th>\
            <th class="num">Requests / min</th><th class="num">Domains</th><th class="num">Subdomains</th>\
            <th class="num">Tracker share</th><th class="num">Blocked</th><th class="num">Sent your data</th></tr></thead>
            <tbody>

            """
        for app in apps {
            page += "<tr><td>\(Self.dotted(app.app))</td>"
            writeRanked(NumberText.count(app.runs), app, .runs, to: &page)
            writeRanked(NumberText.count(app.requests), app, .requests, to: &page)
            writeRanked(NumberText.fixed(app.requestsPerMinute), app, .requestsPerMinute, to: &page)
            writeRanked(NumberText.count(app.domains), app, .domains, to: &page)
            writeRanked(NumberText.count(app.subdomains), app, .subdomains, to: &page)
            writeRanked(NumberText.percent(app.trackerShare), app, .trackerShare, to: &page)
            page += "<td class=\"num\">\(NumberText.count(app.blocked))</td>"
            page += "<td class=\"num\">\(NumberText.count(app.sentData))</td></tr>\n"
        }
        page += "</tbody>\n</table>\n"
        page += "<p class=\"note\">#1 is the highest value among the \(NumberText.count(apps.count)) "
        page += apps.count == 1 ? "app" : "apps"
        page += "; equal values share a rank.</p>\n</section>\n"
    }

    private func writeRanked(_ value: String, _ app: AppMetrics, _ metric: AppMetrics.Metric, to page: inout String) {
        page += "<td class=\"num\">\(value)"
        if let rank = app.ranks[metric] { page += "<span class=\"rank\">#\(rank)</span>" }
        page += "</td>"
    }
}
