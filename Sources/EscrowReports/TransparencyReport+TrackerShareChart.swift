extension TransparencyReport {
    /// The most apps the tracker-share chart shows (the metrics table lists them all).
    static let maximumTrackerShareRows = 30

    /// The tracker-share chart: per app that made requests, a bar from 0 to 100 % of its requests
    /// that went to trackers, highest share first, the share also written out.
    func writeTrackerShareChart(to page: inout String) {
        page += "<figure>\n<figcaption>Tracker share per app <span>share of each app&#39;s requests "
        page += "that went to a domain on a tracker list</span></figcaption>\n"
        let active = apps.filter { $0.requests > 0 }
        guard !active.isEmpty else {
            page += "<p class=\"empty\">No app&#39;s compute code has made a request yet.</p>\n</figure>\n"
            return
        }
        let ordered = active.sorted {
            let (a, b) = (Self.clampedShare($0.trackerShare), Self.clampedShare($1.trackerShare))
            if a != b { return a > b }
            if $0.requests != $1.requests { return $0.requests > $1.requests }
            return $0.app < $1.app
        }
        let rows = ordered.prefix(Self.maximumTrackerShareRows)

        let width = 960.0
        let labelRight = 290.0, barLeft = 300.0, barWidth = 560.0
        let top = 28.0, rowHeight = 26.0, barHeight = 16.0
        let height = Int(top + Double(rows.count) * rowHeight + 6)
        let highest = rows.first.map { "; the highest, \(NumberText.percent(Self.clampedShare($0.trackerShare)))" } ?? ""
        page += SVGMarkup.start(width: Int(width), height: height, title: "Tracker share per app",
                                description: "Share of requests to trackers for \(rows.count) apps\(highest).")

        for percent in stride(from: 0, through: 100, by: 25) {
            let x = barLeft + barWidth * Double(percent) / 100
            page += SVGMarkup.line(x1: x, y1: top - 6, x2: x, y2: top + Double(rows.count) * rowHeight - 4, style: "grid")
            page += SVGMarkup.text("\(percent) %", x: x, y: top - 12, anchor: .middle)
        }
        for (index, app) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            let share = Self.clampedShare(app.trackerShare)
            let trackerRequests = Int((share * Double(app.requests)).rounded())
            page += SVGMarkup.text(app.app, x: labelRight, y: y + barHeight - 3, anchor: .end, limit: 40)
            page += SVGMarkup.rect(x: barLeft, y: y, width: barWidth, height: barHeight, style: "track")
            page += SVGMarkup.rect(x: barLeft, y: y, width: barWidth * share, height: barHeight, style: "tracker",
                                   tooltip: "\(app.app): \(NumberText.count(trackerRequests)) of \(NumberText.count(app.requests)) requests to trackers")
            page += SVGMarkup.text(NumberText.percent(share), x: barLeft + barWidth + 8, y: y + barHeight - 3,
                                   style: "value")
        }
        page += SVGMarkup.end
        if ordered.count > rows.count {
            page += "<p class=\"note\">\(NumberText.count(ordered.count - rows.count)) more apps with lower shares "
            page += "are in the table above.</p>\n"
        }
        page += "</figure>\n"
    }

    /// A share held to 0…1 (0 when it is not a number), so a bar never leaves its track.
    static func clampedShare(_ share: Double) -> Double {
        share.isNaN ? 0 : min(max(share, 0), 1)
    }
}
