import Foundation

/// The `--json` output of `escrow run`: `{"columns": [names…], "rows": [[values…], …]}`.
struct FrameJSON {
    let columns: [String]
    let rows: [[Any]]

    /// Parses the output; `nil` when it is not that shape.
    init?(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let columns = object["columns"] as? [String],
              let rows = object["rows"] as? [[Any]],
              rows.allSatisfy({ $0.count == columns.count })
        else { return nil }
        self.columns = columns
        self.rows = rows
    }

    /// The values of one column, by name.
    func column(_ name: String) -> [Any] {
        guard let index = columns.firstIndex(of: name) else { return [] }
        return rows.map { $0[index] }
    }

    /// The single row as a name → value dictionary; `nil` unless there is exactly one row.
    var onlyRow: [String: Any]? {
        guard rows.count == 1 else { return nil }
        return Dictionary(uniqueKeysWithValues: zip(columns, rows[0]))
    }
}
