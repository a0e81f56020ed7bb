/// One read recorded for an access query: a column of a table, or the table as a whole
/// (`column == nil`, as for `count(*)`).
public struct ColumnRead: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let table: String
    public let column: String?

    public init(table: String, column: String?) {
        self.table = table
        self.column = column
    }

    /// `Table.column`, or `Table.*` for a table-level read.
    public var description: String { "\(table).\(column ?? "*")" }

    public static func < (lhs: ColumnRead, rhs: ColumnRead) -> Bool {
        (lhs.table, lhs.column ?? "") < (rhs.table, rhs.column ?? "")
    }
}

/// The column-level lineage of an access query: exactly which columns of which tables it reads.
public struct Lineage: Sendable, Hashable, Codable, CustomStringConvertible {
    public let reads: Set<ColumnRead>

    public init(_ reads: Set<ColumnRead>) { self.reads = reads }

    /// The reads sorted by table, then column (table-level reads first).
    public var sorted: [ColumnRead] { reads.sorted() }

    /// The tables read, sorted.
    public var tables: [String] { Set(reads.map(\.table)).sorted() }

    /// One `Table.column` per line, sorted.
    public var description: String { sorted.map(\.description).joined(separator: "\n") }
}
