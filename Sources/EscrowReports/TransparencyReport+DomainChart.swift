extension TransparencyReport {
    /// How many domains the most-contacted chart shows.
    static let maximumDomainRows = 15

    /// The most-contacted-domains chart: the domains with the most requests, each a bar whose
    /// requests to tracker hosts are drawn in the tracker colour and also named in text
    /// (`tracker`, or `tracker: 3 of 10`), so the colour is never the only sign.
    func writeDomainChart(_ tally: RequestTally, to page: inout String) {
        let top = tally.topDomains(Self.maximumDomainRows)
        page += "<figure>\n<figcaption>Most contacted domains <span>"
        page += top.count < tally.domains.count
            ? "the \(top.count) with the most requests, of \(NumberText.count(tally.domains.count)) domains"
            : "all \(top.count) domains, by requests"
        page += "</span></figcaption>\n"

        let width = 960.0
        let labelRight = 290.0, barLeft = 300.0, barWidth = 440.0
        let legendY = 14.0, top0 = 52.0, rowHeight = 26.0, barHeight = 16.0
        let height = Int(top0 + Double(top.count) * rowHeight + 6)
        let scale = ChartScale(largest: top.first?.count.requests ?? 1, ticks: 4)
        let trackers = top.count(where: { $0.count.trackerRequests > 0 })
        page += SVGMarkup.start(width: Int(width), height: height, title: "Most contacted domains",
                                description: "The \(top.count) domains with the most requests; \(trackers) of them on a tracker list.")

        page += SVGMarkup.rect(x: barLeft, y: legendY - 10, width: 12, height: 12, style: "tracker")
        page += SVGMarkup.text("on a tracker list", x: barLeft + 18, y: legendY)
        page += SVGMarkup.rect(x: barLeft + 150, y: legendY - 10, width: 12, height: 12, style: "first-party")
        page += SVGMarkup.text("not on a tracker list", x: barLeft + 168, y: legendY)

        for tick in scale.ticks {
            let x = barLeft + scale.position(tick, length: barWidth)
            page += SVGMarkup.line(x1: x, y1: top0 - 6, x2: x, y2: top0 + Double(top.count) * rowHeight - 4, style: "grid")
            page += SVGMarkup.text(NumberText.count(tick), x: x, y: top0 - 12, anchor: .middle)
        }
        for (index, entry) in top.enumerated() {
            let y = top0 + Double(index) * rowHeight
            let count = entry.count
            let trackerWidth = scale.position(count.trackerRequests, length: barWidth)
            let otherWidth = scale.position(count.requests - count.trackerRequests, length: barWidth)
            page += SVGMarkup.text(entry.domain, x: labelRight, y: y + barHeight - 3, anchor: .end, limit: 40)
            if count.trackerRequests > 0 {
                page += SVGMarkup.rect(x: barLeft, y: y, width: trackerWidth, height: barHeight, style: "tracker",
                                       tooltip: "\(entry.domain): \(NumberText.count(count.trackerRequests)) requests to tracker hosts")
            }
            if count.requests > count.trackerRequests {
                page += SVGMarkup.rect(x: barLeft + trackerWidth, y: y, width: otherWidth, height: barHeight,
                                       style: "first-party",
                                       tooltip: "\(entry.domain): \(NumberText.count(count.requests - count.trackerRequests)) requests to hosts on no tracker list")
            }
            let valueX = barLeft + trackerWidth + otherWidth + 8
            page += SVGMarkup.text(NumberText.count(count.requests), x: valueX, y: y + barHeight - 3, style: "value")
            if count.trackerRequests > 0 {
                let tag = count.trackerRequests == count.requests
                    ? "tracker"
                    : "tracker: \(NumberText.count(count.trackerRequests)) of \(NumberText.count(count.requests))"
                let digits = Double(NumberText.count(count.requests).count)
                page += SVGMarkup.text("· " + tag, x: valueX + digits * 7.5 + 6, y: y + barHeight - 3, style: "tag")
            }
        }
        page += SVGMarkup.end
        page += "</figure>\n"
    }
}
