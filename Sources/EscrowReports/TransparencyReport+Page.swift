extension TransparencyReport {
    /// The page's policy: nothing may load or run; only the inline style sheet and inline SVG apply.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

    /// From the doctype to `<body>`: the character set, the policy, the title and the style sheet.
    static let documentStart = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Escrow transparency report</title>
        <style>
        \(styleSheet)
        </style>
        </head>
        <body>

        """

    /// The title, the generation date, the period the requests cover and the totals.
    func writeHeader(_ tally: RequestTally, to page: inout String) {
        page += "<header>\n<h1>Escrow transparency report</h1>\n"
        page += "<p class=\"meta\">Generated <time>\(HTMLText.escaped(generated))</time>. "
        if let first = tally.firstDay, let last = tally.lastDay {
            page += "Requests the compute functions of your dataflows made, from "
            page += "<b>\(RequestTimeline.isoDate(first))</b> to <b>\(RequestTimeline.isoDate(last))</b> (UTC).</p>\n"
        } else {
            page += "No compute function has contacted the network yet.</p>\n"
        }
        let approved = flows.count(where: { $0.status == "approved" })
        let runs = apps.reduce(0) { $0 + $1.runs }
        page += "<dl class=\"totals\">\n"
        writeTotal("Dataflows", NumberText.count(flows.count),
                   note: flows.isEmpty ? nil : "\(NumberText.count(approved)) approved", to: &page)
        writeTotal("Apps", NumberText.count(apps.count), to: &page)
        writeTotal("Runs", NumberText.count(runs), to: &page)
        writeTotal("Requests", NumberText.count(tally.total), to: &page)
        writeTotal("Domains", NumberText.count(tally.domains.count), to: &page)
        writeTotal("To trackers", NumberText.count(tally.trackerRequests),
                   note: tally.total > 0 ? NumberText.percent(Double(tally.trackerRequests) / Double(tally.total)) : nil,
                   to: &page)
        writeTotal("Blocked", NumberText.count(tally.blocked), to: &page)
        writeTotal("Sent your data", NumberText.count(tally.sentData), to: &page)
        page += "</dl>\n</header>\n"
    }

    /// One figure of the totals, with a note under it when given.
    private func writeTotal(_ name: String, _ value: String, note: String? = nil, to page: inout String) {
        page += "<div><dt>\(name)</dt><dd>\(value)"
        if let note { page += " <small>\(note)</small>" }
        page += "</dd></div>\n"
    }

    /// What the numbers mean and what is never recorded.
    func writeFooter(to page: inout String) {
        page += """
            <footer>
            <p>Only domain-level facts are recorded for each request: its time, host, method, size, status and \
            whether it was blocked. Never a path, a query or a body. Domains are registrable domains (eTLD+1, from the \
            Public Suffix List); a request counts as going to a tracker when its host is on a tracker list \
            (EasyList, EasyPrivacy or your own).</p>
            <p>&ldquo;Sent your data&rdquo; counts requests in which a value a function read from your data appeared \
            verbatim in the address or body: a hint when present, never a promise when absent, since hashed or \
            encoded data is not seen. Requests per minute are per minute of compute time. Rank 1 is the highest \
            value among the apps; equal values share a rank. Days are UTC days.</p>
            </footer>

            """
    }

    /// The inline style sheet: screen and print.
    static let styleSheet = """
        :root { color-scheme: light; --ink: #1d232b; --muted: #5b6570; --line: #dde2e7; --panel: #f4f6f8; }
        * { box-sizing: border-box; }
        html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        body { margin: 0 auto; max-width: 1120px; padding: 32px 28px 48px; background: #fff; color: var(--ink);
          font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
        header { border-bottom: 3px solid var(--ink); padding-bottom: 18px; }
        h1 { font-size: 28px; margin: 0 0 4px; letter-spacing: -0.01em; }
        h2 { font-size: 20px; margin: 36px 0 12px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
        .meta { color: var(--muted); margin: 0 0 16px; }
        .meta b { color: var(--ink); font-weight: 600; }
        .totals { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 10px; margin: 0; }
        .totals div { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
        .totals dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: 0.04em; }
        .totals dd { margin: 2px 0 0; font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
        .totals small { display: block; font-size: 12px; font-weight: 400; color: var(--muted); }
        table { width: 100%; border-collapse: collapse; font-size: 14px; }
        th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { background: var(--panel); font-size: 13px; font-weight: 600; white-space: nowrap; }
        td { overflow-wrap: anywhere; }
        td small { color: var(--muted); }
        table.metrics td:first-child { min-width: 16ch; }
        table.flows th:nth-child(1) { width: 20%; }
        table.flows th:nth-child(2) { width: 15%; }
        table.flows th:nth-child(3) { width: 19%; }
        table.flows th:nth-child(4) { width: 12%; }
        table.flows th:nth-child(5) { width: 17%; }
        .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        code { font: 13px ui-monospace, "DejaVu Sans Mono", monospace; background: var(--panel); padding: 1px 4px;
          border-radius: 3px; }
        .rank { color: var(--muted); font-size: 12px; margin-left: 4px; }
        .status { display: inline-block; padding: 1px 8px; border: 1px solid; border-radius: 10px; font-size: 13px;
          font-weight: 600; }
        .status.approved { background: #e3f4ea; color: #11632f; border-color: #9ed3b0; }
        .status.pending { background: #fff4d6; color: #7a5300; border-color: #f0cf75; }
        .status.denied { background: #fde6e4; color: #a1251b; border-color: #f1aba4; }
        .status.revoked, .status.other { background: #eceef1; color: #4a525c; border-color: #c5cbd3; }
        .empty { color: var(--muted); font-style: italic; padding: 12px 16px; background: var(--panel); border-radius: 6px; }
        .note { color: var(--muted); font-size: 13px; margin: 6px 0 0; }
        figure { margin: 20px 0 32px; break-inside: avoid; }
        figcaption { font-weight: 600; margin-bottom: 8px; }
        figcaption span { font-weight: 400; color: var(--muted); }
        svg.chart { display: block; width: 100%; height: auto; }
        svg text { font-family: system-ui, "Noto Sans", "DejaVu Sans", sans-serif; font-size: 12px; fill: #39424d; }
        svg .axis { stroke: #6b7580; stroke-width: 1; }
        svg .grid { stroke: #e3e7eb; stroke-width: 1; }
        svg .track { fill: #eef1f4; }
        svg .s0 { fill: #0072b2; } svg .s1 { fill: #e69f00; } svg .s2 { fill: #009e73; } svg .s3 { fill: #cc79a7; }
        svg .s4 { fill: #56b4e9; } svg .s5 { fill: #8a6d00; } svg .s6 { fill: #6a4c93; } svg .s7 { fill: #8c939b; }
        svg .tracker { fill: #d55e00; } svg .first-party { fill: #4c78a8; }
        svg text.tag { fill: #a33f00; font-weight: 600; }
        svg text.value { fill: #1d232b; font-variant-numeric: tabular-nums; }
        footer { margin-top: 40px; padding-top: 12px; border-top: 1px solid var(--line); color: var(--muted); font-size: 13px; }
        @media print {
          body { max-width: none; padding: 0; font-size: 10.5pt; }
          h2 { break-after: avoid; }
          tr, figure, footer, .note { break-inside: avoid; }
          thead { display: table-header-group; }
          th { white-space: normal; }
        }
        @page { margin: 15mm; }
        """
}
