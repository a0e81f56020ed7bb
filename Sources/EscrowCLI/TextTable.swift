/// Aligned plain-text tables for human output.
enum TextTable {
    /// Renders rows under a header, columns padded to their widest cell; the last column is
    /// not padded. Ends with a newline.
    static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let columns = header.count
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (index, cell) in row.enumerated() where index < columns {
                widths[index] = max(widths[index], cell.count)
            }
        }
        var text = ""
        for row in all {
            var line = ""
            for (index, cell) in row.enumerated() where index < columns {
                if index == columns - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[index] - cell.count + 2)
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        return text
    }
}
