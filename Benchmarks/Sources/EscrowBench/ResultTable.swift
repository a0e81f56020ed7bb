import Foundation

/// Renders figures as an aligned text table and as JSON.
enum ResultTable {
    static func text(_ results: [FigureResult]) -> String {
        let header = ["figure", "unit", "median", "min", "max", "reps", "paper", "target", "met"]
        let rows = results.map { result in
            [
                result.name, result.unit, number(result.median), number(result.min), number(result.max),
                String(result.repetitions), result.paper.map(number) ?? "-", result.target.map { (result.higherIsBetter ? "≥" : "") + number($0) } ?? "-",
                result.meetsTarget.map { $0 ? "yes" : "NO" } ?? "-",
            ]
        }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    static func json(_ results: [FigureResult]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(results)
    }

    /// Three significant digits past the point for small values, fewer for large ones.
    private static func number(_ value: Double) -> String {
        let decimals = value >= 1000 ? 0 : value >= 100 ? 1 : value >= 10 ? 2 : 3
        return String(format: "%.\(decimals)f", value)
    }
}
