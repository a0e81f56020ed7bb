/// Why access SQL was refused or could not run. Each case names the part of the statement at
/// fault and says what to do.
public enum AccessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The guard refused part of the statement.
    case refused(AccessRefusal)
    /// SQLite could not compile the statement (syntax error, unknown table or column), with
    /// SQLite's message and the byte offset of the error when SQLite knows it.
    case invalidSQL(message: String, offset: Int?)
    /// The statement is empty (only whitespace or comments).
    case emptyStatement
    /// The SQL text is longer than the limit.
    case sqlTooLong(length: Int, limit: Int)
    /// The query ran past its instruction budget and was interrupted.
    case budgetExceeded(instructions: Int)
    /// The query ran past its time limit and was interrupted.
    case timeLimitExceeded(seconds: Double)
    /// The result has more rows than allowed.
    case tooManyRows(limit: Int)
    /// The result is larger than allowed.
    case tooManyBytes(limit: Int)
    /// One text or blob value of the result, in the named result column, is longer than
    /// `AccessPolicy.maxValueBytes`.
    case valueTooLarge(column: String, bytes: Int, limit: Int)
    /// SQLite stopped the query because an expression (`printf`, `replace`, `||`,
    /// `group_concat`, …) would have built a text or blob value over SQLite's length limit
    /// (`AccessPolicy.maxValueBytes`, at least 1 MiB). SQLite does not say which expression.
    case runningValueTooLarge(limit: Int)
    /// The query failed while running (SQLite's message).
    case executionFailed(message: String)

    public var description: String {
        switch self {
        case .refused(let refusal):
            return "access SQL refused: \(refusal)"
        case .invalidSQL(let message, let offset):
            var text = "access SQL is not valid: \(message)"
            if let offset { text += " (at byte \(offset))" }
            if message.hasPrefix("no such table") {
                text += "; the tables you can read are Contact, Location and Photos"
            } else if message.hasPrefix("no such column") {
                text += "; Schemas/data lists the columns of each table (docs/ACCESS.md)"
            }
            return text
        case .emptyStatement:
            return "access SQL is empty; write one SELECT over Contact, Location or Photos"
        case .sqlTooLong(let length, let limit):
            return "access SQL is \(length) bytes, over the limit of \(limit); shorten the query"
        case .budgetExceeded(let instructions):
            return "access SQL was interrupted after \(instructions) SQLite instructions (its budget); narrow the query or add a LIMIT"
        case .timeLimitExceeded(let seconds):
            return "access SQL was interrupted after \(seconds) s (its time limit); narrow the query or add a LIMIT"
        case .tooManyRows(let limit):
            return "access SQL returned more than \(limit) rows (the limit); add a LIMIT or a WHERE clause"
        case .tooManyBytes(let limit):
            return "access SQL returned more than \(limit) bytes (the limit); select fewer columns or rows"
        case .valueTooLarge(let column, let bytes, let limit):
            return "access SQL returned a value of \(bytes) bytes in column \(column), over the limit of \(limit) bytes for one value; select less of it, e.g. substr(\(column), 1, \(limit)), or compute what you need in SQL (length, instr)"
        case .runningValueTooLarge(let limit):
            return "access SQL was stopped: it would build a text or blob value over \(limit) bytes (the limit for one value); build smaller values (substr, a narrower printf width, fewer rows into group_concat)"
        case .executionFailed(let message):
            return "access SQL failed while running: \(message)"
        }
    }
}

/// The part of a statement the guard refused.
public enum AccessRefusal: Sendable, Equatable, CustomStringConvertible {
    /// A statement that is not a query (`VACUUM`, `BEGIN`, `CREATE …`), by its first keyword.
    case statement(String)
    /// More than one statement in the string.
    case multipleStatements
    /// INSERT, UPDATE or DELETE on a table.
    case write(operation: String, table: String)
    /// CREATE, DROP or ALTER of a schema object.
    case schemaChange(operation: String, name: String)
    /// A temporary object.
    case temporaryObject(operation: String, name: String)
    /// ATTACH of a database file.
    case attach(String)
    /// DETACH of a database.
    case detach(String)
    /// A PRAGMA.
    case pragma(String)
    /// BEGIN/COMMIT/ROLLBACK or SAVEPOINT.
    case transaction(String)
    /// A function that is not a pure function.
    case function(name: String, reason: String)
    /// SQLite's schema or internal tables.
    case internalTable(String)
    /// A table other than the data tables (or in another database).
    case table(String)
    /// A virtual table module other than json_each/json_tree.
    case virtualTable(String)
    /// A table of location data read other than through its masked copy, under a location
    /// accuracy below exact (`main.Location`).
    case unmaskedLocation(String)
    /// A join that compares columns it does not name to the guard (`NATURAL`, `USING`).
    case implicitJoin(String)
    /// EXPLAIN.
    case explain
    /// Any other operation.
    case operation(String)

    public var description: String {
        switch self {
        case .statement(let keyword):
            "\(keyword) statements are not allowed; access SQL is a single SELECT (or WITH … SELECT)"
        case .multipleStatements:
            "more than one statement; send one SELECT per access"
        case .write(let operation, let table):
            "\(operation) on \(table); access SQL can only read"
        case .schemaChange(let operation, let name):
            "\(operation) \(name); access SQL cannot change the schema"
        case .temporaryObject(let operation, let name):
            "\(operation) \(name); access SQL cannot create or use temporary objects"
        case .attach(let file):
            "ATTACH \(file.isEmpty ? "of a database" : "'\(file)'"); access SQL reads only the escrow's data tables"
        case .detach(let name):
            "DETACH \(name); access SQL cannot change attached databases"
        case .pragma(let name):
            "PRAGMA \(name); pragmas are not allowed in access SQL"
        case .transaction(let operation):
            "\(operation); transactions are not allowed in access SQL"
        case .function(let name, let reason):
            "function \(name)(): \(reason)"
        case .internalTable(let name):
            "reading \(name); SQLite's internal tables are not readable, only Contact, Location and Photos"
        case .table(let name):
            "reading \(name); access SQL can read only Contact, Location and Photos"
        case .virtualTable(let name):
            "virtual table \(name); only json_each and json_tree are allowed"
        case .unmaskedLocation(let name):
            "reading \(name); under the location accuracy the individual approved, location is read only as "
                + "masked: name the table without a schema (Location, Photos)"
        case .implicitJoin(let keyword):
            "\(keyword) in a join: SQLite does not tell the guard which columns such a join compares, so what it reads "
                + "cannot be shown or checked; name them with JOIN … ON a.column = b.column"
        case .explain:
            "EXPLAIN; send the query itself"
        case .operation(let name):
            "\(name) is not allowed in access SQL"
        }
    }
}
