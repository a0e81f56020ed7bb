/// Numbers as the transparency report shows them: counts grouped in thousands (`100,000`),
/// fractions with a fixed number of decimals (`12.5`), percentages (`37.5 %`).
///
/// Written by hand rather than with Foundation's formatters so the report reads the same on
/// every system, whatever its locale. A value that is not finite shows as `–`.
///
/// Thread safety: pure functions.
public enum NumberText: Sendable {
    /// The count with a comma between groups of three digits.
    public static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        guard digits.count > 3 else { return value < 0 ? "-" + digits : digits }
        var result = value < 0 ? "-" : ""
        let leading = digits.count % 3
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (offset - leading) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return result
    }

    /// The value rounded to `decimals` places (0…6), with its integer part grouped like `count`.
    static func fixed(_ value: Double, decimals: Int = 1) -> String {
        guard value.isFinite else { return "–" }
        let places = min(max(decimals, 0), 6)
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (value.magnitude * scale).rounded()
        guard scaled < 9e15 else { return value < 0 ? "-∞" : "∞" }
        let units = Int(scaled)
        let factor = Int(scale)
        let sign = value < 0 && units != 0 ? "-" : ""
        let whole = count(units / factor)
        guard places > 0 else { return sign + whole }
        let fraction = String(units % factor)
        return sign + whole + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }

    /// A share (0…1) as a percentage with one decimal: `0.375` is `37.5 %`.
    static func percent(_ share: Double) -> String {
        fixed(share * 100, decimals: 1) + " %"
    }

    /// A coordinate for an SVG attribute: at most two decimals, no trailing zeros, never `-0`.
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let hundredths = Int((min(max(value, -1e9), 1e9) * 100).rounded())
        guard hundredths != 0 else { return "0" }
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = hundredths.magnitude
        let whole = magnitude / 100
        let fraction = magnitude % 100
        if fraction == 0 { return sign + String(whole) }
        if fraction % 10 == 0 { return sign + String(whole) + "." + String(fraction / 10) }
        return sign + String(whole) + "." + (fraction < 10 ? "0" : "") + String(fraction)
    }
}
