import EscrowCore

/// Aligned plain-text tables for human output.
enum TextTable {
    /// Renders rows under a header, columns padded to their widest cell; the last column is
    /// not padded. Ends with a newline.
    ///
    /// - Parameters:
    ///   - paint: decorates a body cell (e.g. with colour) after its width is measured, so escape
    ///     codes never disturb the alignment. Gets the column index and the cell.
    ///
    /// Every cell is shown with `DisplayText.escaped` first: a cell cannot break its row, move
    /// the cursor or hide part of itself, whatever an app or a file put in it.
    static func render(header: [String], rows: [[String]],
                       paint: (_ column: Int, _ cell: String) -> String = { $1 }) -> String {
        let all = ([header] + rows).map { row in row.map { DisplayText.escaped($0) } }
        let columns = header.count
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (index, cell) in row.enumerated() where index < columns {
                widths[index] = max(widths[index], cell.count)
            }
        }
        var text = ""
        for (rowIndex, row) in all.enumerated() {
            var line = ""
            for (index, cell) in row.enumerated() where index < columns {
                let shown = rowIndex == 0 ? cell : paint(index, cell)
                if index == columns - 1 {
                    line += shown
                } else {
                    line += shown + String(repeating: " ", count: widths[index] - cell.count + 2)
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        return text
    }
}
