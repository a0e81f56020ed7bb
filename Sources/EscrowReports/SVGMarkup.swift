import EscrowCore

/// The few SVG elements the report's charts are drawn with, as markup for an inline `<svg>` in an
/// HTML page. Every text argument is raw text: these functions escape it (`HTMLText`), so a chart
/// cannot forget to. Coordinates are written with at most two decimals.
///
/// Thread safety: pure functions.
enum SVGMarkup {
    /// Where a text is anchored.
    enum Anchor: String {
        case start, middle, end
    }

    /// The opening tag of a chart `width` × `height` units large that scales to the page's width,
    /// with its accessible name (`<title>`) and a description.
    static func start(width: Int, height: Int, title: String, description: String) -> String {
        "<svg class=\"chart\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\">"
            + "<title>\(HTMLText.escaped(title))</title><desc>\(HTMLText.escaped(description))</desc>\n"
    }

    static let end = "</svg>\n"

    /// A rectangle of the style class `style`, with a tooltip when `tooltip` is given.
    static func rect(x: Double, y: Double, width: Double, height: Double, style: String, tooltip: String? = nil) -> String {
        var markup = "<rect class=\"\(style)\" x=\"\(NumberText.coordinate(x))\" y=\"\(NumberText.coordinate(y))\""
            + " width=\"\(NumberText.coordinate(max(width, 0)))\" height=\"\(NumberText.coordinate(max(height, 0)))\""
        if let tooltip {
            markup += "><title>\(HTMLText.escaped(tooltip))</title></rect>\n"
        } else {
            markup += "/>\n"
        }
        return markup
    }

    /// A line of the style class `style`.
    static func line(x1: Double, y1: Double, x2: Double, y2: Double, style: String) -> String {
        "<line class=\"\(style)\" x1=\"\(NumberText.coordinate(x1))\" y1=\"\(NumberText.coordinate(y1))\""
            + " x2=\"\(NumberText.coordinate(x2))\" y2=\"\(NumberText.coordinate(y2))\"/>\n"
    }

    /// A text, cut to `limit` characters when given (the cut shows as `…`, and the whole text then
    /// becomes the tooltip).
    static func text(_ content: String, x: Double, y: Double, anchor: Anchor = .start, style: String? = nil,
                     limit: Int? = nil) -> String {
        var markup = "<text x=\"\(NumberText.coordinate(x))\" y=\"\(NumberText.coordinate(y))\""
        if anchor != .start { markup += " text-anchor=\"\(anchor.rawValue)\"" }
        if let style { markup += " class=\"\(style)\"" }
        markup += ">"
        if let limit, DisplayText.escaped(content).count > limit {
            markup += "<title>\(HTMLText.escaped(content))</title>" + HTMLText.escaped(content, limit: limit)
        } else {
            markup += HTMLText.escaped(content)
        }
        return markup + "</text>\n"
    }
}
