extension TransparencyReport {
    /// The requests-over-time chart: one stacked bar per bucket of time, one colour per app, with a
    /// value axis, period labels and a legend.
    func writeTimelineChart(_ timeline: RequestTimeline, to page: inout String) {
        let per = switch timeline.unit {
        case .day: "day"
        case .week: "week"
        case .month: "month"
        case .years(let step): step == 1 ? "year" : "\(step) years"
        }
        let span: String
        if let first = timeline.buckets.first, let last = timeline.buckets.last {
            span = "\(RequestTimeline.isoDate(first.firstDay)) to \(RequestTimeline.isoDate(last.firstDay))"
        } else {
            span = ""
        }
        page += "<figure>\n<figcaption>Requests per \(per) <span>by app"
        if timeline.unit == .week { page += ", weeks from Monday to Sunday" }
        page += ", UTC</span></figcaption>\n"

        let width = 960.0
        let left = 64.0, right = 16.0, top = 32.0, plotHeight = 240.0
        let plotWidth = width - left - right
        let plotBottom = top + plotHeight

        // The legend: one swatch and name per series, wrapped into rows.
        let legendTop = plotBottom + 46
        var legend = ""
        var legendX = left, legendRow = 0
        for (index, name) in timeline.series.enumerated() {
            let shown = min(name.count, 36)
            let itemWidth = 18 + Double(shown) * 7 + 22
            if legendX > left, legendX + itemWidth > width - right {
                legendX = left
                legendRow += 1
            }
            let y = legendTop + Double(legendRow) * 20
            legend += SVGMarkup.rect(x: legendX, y: y - 10, width: 12, height: 12, style: "s\(index)")
            legend += SVGMarkup.text(name, x: legendX + 18, y: y, limit: 36)
            legendX += itemWidth
        }
        let height = Int(legendTop + Double(legendRow) * 20 + 14)

        let busiest = timeline.buckets.max { $0.total < $1.total }
        var description = "\(NumberText.count(timeline.buckets.reduce(0) { $0 + $1.total })) requests from \(span)"
        if let busiest { description += "; the most, \(NumberText.count(busiest.total)), in \(busiest.period)" }
        page += SVGMarkup.start(width: Int(width), height: height,
                                title: "Requests per \(per) by app, \(span)", description: description + ".")

        // The value axis and its grid.
        let scale = ChartScale(largest: timeline.largestBucket, ticks: 5)
        for tick in scale.ticks {
            let y = plotBottom - scale.position(tick, length: plotHeight)
            if tick > 0 { page += SVGMarkup.line(x1: left, y1: y, x2: width - right, y2: y, style: "grid") }
            page += SVGMarkup.text(NumberText.count(tick), x: left - 8, y: y + 4, anchor: .end)
        }
        page += SVGMarkup.text("requests", x: left - 8, y: top - 16, anchor: .end)

        // The bars, stacked in series order from the axis up.
        let count = timeline.buckets.count
        let band = plotWidth / Double(max(count, 1))
        let barWidth = min(band * 0.72, 56)
        let labelEvery = max(1, Int((Double(count) / (plotWidth / 64)).rounded(.up)))
        for (index, bucket) in timeline.buckets.enumerated() {
            let x = left + band * Double(index) + (band - barWidth) / 2
            var y = plotBottom
            for (series, requests) in bucket.counts.enumerated() where requests > 0 {
                let barHeight = scale.position(requests, length: plotHeight)
                y -= barHeight
                let noun = requests == 1 ? "request" : "requests"
                page += SVGMarkup.rect(x: x, y: y, width: barWidth, height: barHeight, style: "s\(series)",
                                       tooltip: "\(timeline.series[series]): \(NumberText.count(requests)) \(noun), \(bucket.period)")
            }
            if index % labelEvery == 0 {
                page += SVGMarkup.text(bucket.label, x: x + barWidth / 2, y: plotBottom + 18, anchor: .middle)
            }
        }
        page += SVGMarkup.line(x1: left, y1: plotBottom, x2: width - right, y2: plotBottom, style: "axis")
        page += legend
        page += SVGMarkup.end
        page += "</figure>\n"
    }
}
