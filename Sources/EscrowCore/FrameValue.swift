/// One non-null cell of a `Frame`, for generic code (rendering, tests). Compute functions use the
/// typed accessors of `Column` instead.
public enum FrameValue: Sendable, Hashable {
    case int64(Int64)
    case double(Double)
    case string(String)
    case bytes([UInt8])
    case bool(Bool)

    /// The column type this value belongs to.
    public var type: ColumnType {
        switch self {
        case .int64: .int64
        case .double: .double
        case .string: .string
        case .bytes: .bytes
        case .bool: .bool
        }
    }
}
