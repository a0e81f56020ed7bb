/// The values of one column, stored contiguously by type.
public enum ColumnValues: Sendable, Equatable {
    case int64([Int64])
    case double([Double])
    case string([String])
    case bytes([[UInt8]])
    case bool([Bool])

    /// The element type.
    public var type: ColumnType {
        switch self {
        case .int64: .int64
        case .double: .double
        case .string: .string
        case .bytes: .bytes
        case .bool: .bool
        }
    }

    /// Number of cells, nulls included (a null cell holds a placeholder value).
    public var count: Int {
        switch self {
        case .int64(let values): values.count
        case .double(let values): values.count
        case .string(let values): values.count
        case .bytes(let values): values.count
        case .bool(let values): values.count
        }
    }
}

/// One named, typed column of a `Frame`, with nulls.
///
/// A null cell keeps a placeholder (0, "", empty bytes, false) in `values` and is marked in
/// `nulls`; `nulls` is empty when the column has no null at all.
public struct Column: Sendable, Equatable {
    /// The column's name as the access SQL produced it.
    public let name: String
    /// The cells.
    public let values: ColumnValues
    /// `nulls[row]` is true where the cell is null; empty when no cell is null.
    public let nulls: [Bool]

    /// Creates a column. `nulls` must be empty or have one flag per value.
    public init(name: String, values: ColumnValues, nulls: [Bool] = []) {
        precondition(nulls.isEmpty || nulls.count == values.count, "null flags must match the values")
        self.name = name
        self.values = values
        self.nulls = nulls.contains(true) ? nulls : []
    }

    /// The column type.
    public var type: ColumnType { values.type }

    /// Number of rows.
    public var count: Int { values.count }

    /// Whether the cell at `row` is null.
    @inlinable
    public func isNull(at row: Int) -> Bool { !nulls.isEmpty && nulls[row] }

    /// The cell at `row`, or nil when it is null.
    public func value(at row: Int) -> FrameValue? {
        if isNull(at: row) { return nil }
        switch values {
        case .int64(let values): return .int64(values[row])
        case .double(let values): return .double(values[row])
        case .string(let values): return .string(values[row])
        case .bytes(let values): return .bytes(values[row])
        case .bool(let values): return .bool(values[row])
        }
    }

    /// The integer at `row`; nil when null or not an integer column.
    public func int64(at row: Int) -> Int64? {
        guard !isNull(at: row), case .int64(let values) = values else { return nil }
        return values[row]
    }

    /// The number at `row` (integers widen to `Double`); nil when null or not numeric.
    public func double(at row: Int) -> Double? {
        guard !isNull(at: row) else { return nil }
        switch values {
        case .double(let values): return values[row]
        case .int64(let values): return Double(values[row])
        default: return nil
        }
    }

    /// The text at `row`; nil when null or not a text column.
    public func string(at row: Int) -> String? {
        guard !isNull(at: row), case .string(let values) = values else { return nil }
        return values[row]
    }

    /// The bytes at `row`; nil when null or not a bytes column.
    public func bytes(at row: Int) -> [UInt8]? {
        guard !isNull(at: row), case .bytes(let values) = values else { return nil }
        return values[row]
    }

    /// The boolean at `row` (integers read as `!= 0`); nil when null or not boolean.
    public func bool(at row: Int) -> Bool? {
        guard !isNull(at: row) else { return nil }
        switch values {
        case .bool(let values): return values[row]
        case .int64(let values): return values[row] != 0
        default: return nil
        }
    }
}
