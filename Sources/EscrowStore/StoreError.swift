/// A failure of the escrow's storage: SQLite, the escrow home, or asset files.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failures a caller may want to tell apart from the others.
    public enum Kind: Sendable, Equatable {
        /// Any other failure; `message` says what happened.
        case failure
        /// The folder has no escrow databases: it was never initialised (or the path is wrong).
        case notAnEscrowHome(path: String)
        /// A value the escrow stored cannot be read back (the database was changed outside the
        /// escrow, or is damaged): the table, the record's id and the column.
        case unreadableValue(table: String, record: String, column: String)
    }

    /// Which failure this is.
    public let kind: Kind
    /// SQLite's extended result code, when SQLite reported the failure.
    public let code: Int32?
    /// What happened, and what to do when the storage alone can tell.
    public let message: String
    /// The statement that failed, when there is one.
    public let sql: String?

    public init(code: Int32? = nil, message: String, sql: String? = nil) {
        self.init(kind: .failure, code: code, message: message, sql: sql)
    }

    private init(kind: Kind, code: Int32? = nil, message: String, sql: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The folder at `path` is not an escrow home. How to create one is the front end's to say
    /// (the CLI names its `init` command).
    public static func notAnEscrowHome(_ path: String) -> StoreError {
        StoreError(kind: .notAnEscrowHome(path: path), message: "\(path) is not an escrow home")
    }

    /// The value the escrow stored in `column` of record `record` of `table`, in `database`,
    /// cannot be read back: `problem` says why. Nothing is read in its place.
    public static func unreadableValue(table: String, record: String, column: String, database: String,
                                       problem: String) -> StoreError {
        StoreError(kind: .unreadableValue(table: table, record: record, column: column),
                   message: "the stored \(table) \(record) cannot be read: its \(column) is \(problem); "
                       + "\(database) was changed outside the escrow or is damaged: restore it from a backup")
    }

    public var description: String { message }
}
