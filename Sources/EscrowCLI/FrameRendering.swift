import EscrowCore
import Foundation

/// How the CLI shows a frame: an aligned table for people, JSON for programs.
enum FrameRendering {
    /// `{"columns": [names…], "rows": [[values…], …]}`. Null is `null`, bytes are base64 strings.
    static func json(_ frame: Frame) -> String {
        var writer = JSONWriter.forDisplay()
        writer.object { object in
            object.field("columns") { writer in
                writer.array(frame.columnNames) { writer, name in writer.string(name) }
            }
            object.field("rows") { writer in
                writer.array(0..<frame.rowCount) { writer, row in
                    writer.array(frame.columns) { writer, column in
                        switch column.value(at: row) {
                        case nil: writer.null()
                        case .int64(let value): writer.int(value)
                        case .double(let value): writer.double(value)
                        case .string(let value): writer.string(value)
                        case .bool(let value): writer.bool(value)
                        case .bytes(let value): writer.string(Data(value).base64EncodedString())
                        }
                    }
                }
            }
        }
        return writer.text
    }

    /// An aligned table; long cells are cut to 60 characters, bytes shown by their size.
    static func table(_ frame: Frame) -> String {
        let rows = (0..<frame.rowCount).map { row in
            frame.columns.map { column -> String in
                let text: String
                switch column.value(at: row) {
                case nil: text = "NULL"
                case .int64(let value): text = String(value)
                case .double(let value): text = String(value)
                case .string(let value): text = value
                case .bool(let value): text = value ? "true" : "false"
                case .bytes(let value): text = "<\(value.count) bytes>"
                }
                let flat = text.replacingOccurrences(of: "\n", with: " ")
                return flat.count > 60 ? String(flat.prefix(59)) + "…" : flat
            }
        }
        return TextTable.render(header: frame.columnNames, rows: rows)
    }
}
