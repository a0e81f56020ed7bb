/// A failure of the escrow's storage: SQLite, the escrow home, or asset files.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's extended result code, when SQLite reported the failure.
    public let code: Int32?
    /// What happened and what to do.
    public let message: String
    /// The statement that failed, when there is one.
    public let sql: String?

    public init(code: Int32? = nil, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    public var description: String { message }
}
