/// The type of one `Frame` column.
///
/// SQLite values map as INTEGER → `.int64`, REAL → `.double`, TEXT → `.string`, BLOB → `.bytes`;
/// a column declared `BOOLEAN` becomes `.bool`.
public enum ColumnType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case int64
    case double
    case string
    case bytes
    case bool

    public var description: String { rawValue }
}
