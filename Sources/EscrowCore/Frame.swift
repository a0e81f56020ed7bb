/// A columnar table: what access() produces and what compute() consumes and returns.
///
/// Columns are typed (`ColumnType`) and may hold nulls. A `Frame` is a value: it is `Sendable`
/// and can be handed between tasks freely.
public struct Frame: Sendable, Equatable {
    /// The columns, in query order.
    public let columns: [Column]
    /// Number of rows (every column has this many cells).
    public let rowCount: Int

    /// Creates a frame from columns of equal length.
    ///
    /// - Throws: `FrameError` when the columns differ in length or two share a name.
    public init(columns: [Column]) throws(FrameError) {
        let count = columns.first?.count ?? 0
        for column in columns where column.count != count {
            throw .ragged(column: column.name, expected: count, actual: column.count)
        }
        if let name = Self.repeatedName(in: columns) { throw .duplicateColumn(name) }
        self.columns = columns
        self.rowCount = count
    }

    /// The first column name used twice, nil when every name is different. Frames have a few
    /// columns and are built on every call: up to 16 names are compared pairwise (no hashing and
    /// no allocation: a `Set` was most of the cost of checking a small frame), more are hashed.
    private static func repeatedName(in columns: [Column]) -> String? {
        if columns.count <= 16 {
            for later in columns.indices.dropFirst() {
                for earlier in columns.indices[..<later] where columns[earlier].name == columns[later].name {
                    return columns[later].name
                }
            }
            return nil
        }
        var names = Set<String>()
        return columns.first { !names.insert($0.name).inserted }?.name
    }

    /// A frame with no columns and no rows.
    public static let empty = Frame(uncheckedColumns: [], rowCount: 0)

    private init(uncheckedColumns: [Column], rowCount: Int) {
        self.columns = uncheckedColumns
        self.rowCount = rowCount
    }

    /// The column names, in order.
    public var columnNames: [String] { columns.map(\.name) }

    /// The column called `name`.
    ///
    /// - Throws: `FrameError.missingColumn` naming the columns the frame does have.
    public func column(_ name: String) throws(FrameError) -> Column {
        guard let column = columns.first(where: { $0.name == name }) else {
            throw .missingColumn(name, available: columnNames)
        }
        return column
    }

    /// Total size of the cells' payload in bytes (8 per number, UTF-8 length of text, length of
    /// bytes, 1 per boolean): what an audit entry reports as bytes given to compute.
    public var payloadByteCount: Int {
        var total = 0
        for column in columns {
            switch column.values {
            case .int64(let v): total += 8 * v.count
            case .double(let v): total += 8 * v.count
            case .bool(let v): total += v.count
            case .string(let v): for s in v { total += s.utf8.count }
            case .bytes(let v): for b in v { total += b.count }
            }
        }
        return total
    }
}

/// A frame that does not have the expected shape.
public enum FrameError: Error, Sendable, Equatable, CustomStringConvertible {
    case ragged(column: String, expected: Int, actual: Int)
    case duplicateColumn(String)
    case missingColumn(String, available: [String])
    case wrongType(column: String, expected: [ColumnType], actual: ColumnType)

    public var description: String {
        switch self {
        case .ragged(let column, let expected, let actual):
            "column '\(column)' has \(actual) rows where the frame has \(expected)"
        case .duplicateColumn(let name):
            "two columns are named '\(name)'; give each result column its own name (use AS)"
        case .missingColumn(let name, let available):
            "no column '\(name)' in the frame (it has: \(available.isEmpty ? "no columns" : available.joined(separator: ", ")))"
        case .wrongType(let column, let expected, let actual):
            "column '\(column)' is \(actual), expected \(expected.map(\.rawValue).joined(separator: " or "))"
        }
    }
}
