import EscrowCore
import EscrowEgress

/// The HTML transparency report (`escrow report html`): one self-contained page with the
/// dataflows and their decisions, each app's network metrics, and three charts drawn as inline
/// SVG: requests over time, tracker share per app, and the most contacted domains.
///
/// The page loads nothing (no script, no style sheet, no image, no font: its
/// `Content-Security-Policy` forbids all of them but inline styles), reads the same without
/// JavaScript and prints legibly. Every text that came from outside the escrow (app ids,
/// purposes, domains, decisions, the generation date) is escaped with `HTMLText`, so hostile text
/// shows as the characters it is.
///
/// The requests are counted in one pass (`RequestTally`), and the charts draw from those counts,
/// never one element per request: the page's size grows with the dataflows, apps and days, not with
/// the number of requests. The report reads no file and no clock; the caller gives the time it
/// was generated as text.
///
/// Thread safety: a value; `html()` is a pure function of it.
public struct TransparencyReport: Sendable {
    /// When the report was generated, as the caller wants it shown (`2026-11-25 08:30 UTC`).
    public var generated: String
    /// The dataflows and their decisions, in the order to list them.
    public var flows: [FlowSummary]
    /// Each app's metrics with its ranks, in the order to list them.
    public var apps: [AppMetrics]
    /// Every recorded request the charts count.
    public var requests: [RecordedRequest]

    /// A report over the given facts.
    ///
    /// - Parameters:
    ///   - generated: when the report was generated, shown as given.
    ///   - flows: the dataflows and their decisions.
    ///   - apps: each app's metrics, already computed and ranked (`AppMetrics`).
    ///   - requests: the recorded requests the charts count.
    public init(generated: String, flows: [FlowSummary], apps: [AppMetrics], requests: [RecordedRequest]) {
        self.generated = generated
        self.flows = flows
        self.apps = apps
        self.requests = requests
    }

    /// The report as one HTML document (UTF-8 text, no external references).
    ///
    /// - Returns: the page, from `<!doctype html>` to `</html>`.
    public func html() -> String {
        let tally = RequestTally(requests)
        var page = ""
        page.reserveCapacity(64 * 1024 + 512 * (flows.count + apps.count))
        page += Self.documentStart
        writeHeader(tally, to: &page)
        page += "<main>\n"
        writeFlows(to: &page)
        writeAppMetrics(to: &page)
        writeCharts(tally, to: &page)
        page += "</main>\n"
        writeFooter(to: &page)
        page += "</body>\n</html>\n"
        return page
    }

    /// The three charts, or a note that nothing was recorded yet.
    private func writeCharts(_ tally: RequestTally, to page: inout String) {
        page += "<section id=\"charts\">\n<h2>Network requests</h2>\n"
        guard tally.total > 0 else {
            page += "<p class=\"empty\">Nothing recorded yet: no compute function has contacted the network.</p>\n"
            page += "</section>\n"
            return
        }
        writeTimelineChart(RequestTimeline(tally), to: &page)
        writeTrackerShareChart(to: &page)
        writeDomainChart(tally, to: &page)
        page += "</section>\n"
    }
}
