import CSQLite
import EscrowStore

/// `printf` and `format` for access SQL: SQLite's own, held to the length limit before they run.
///
/// SQLite's printf (3.40) returns NULL, not an error, when its output would pass the length
/// limit, and fills a `%.*c` field one character at a time even after it has given up:
/// `printf('%.*c', 2000000000, 'x')` holds the connection for half a minute inside one call,
/// where neither the progress handler nor `sqlite3_interrupt` reaches, and then succeeds with
/// NULL. This guard replaces both functions on the guarded connection. It adds up the field
/// widths and precisions the format asks for (`*` read from the arguments as SQLite reads them)
/// and fails with `SQLITE_TOOBIG` when they pass the limit; otherwise it runs SQLite's own printf
/// on a private in-memory connection with the same limit, so the output is SQLite's byte for
/// byte, and an output that still passes the limit (long arguments) fails instead of being NULL.
///
/// Not thread-safe: used by the guarded connection's one user at a time, inside its queries.
final class PrintfGuard {
    /// SQLite's length limit on the guarded connection.
    let limit: Int
    private let connection: OpaquePointer
    private let helper: Database
    /// `SELECT printf(?1, …, ?n)` on the helper, by argument count.
    private var statements: [Int32: OpaquePointer] = [:]

    /// Installs the guard's `printf` and `format` on `connection`.
    ///
    /// - Throws: `StoreError` when the helper connection cannot be opened.
    init(connection: OpaquePointer, limit: Int) throws(StoreError) {
        self.limit = limit
        self.connection = connection
        helper = try Database(path: ":memory:", mode: .readWrite)
        sqlite3_limit(helper.handle, SQLITE_LIMIT_LENGTH, Int32(clamping: limit))
        let context = Unmanaged.passUnretained(self).toOpaque()
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for name in ["printf", "format"] {
            sqlite3_create_function_v2(connection, name, -1, flags, context, guardedPrintf, nil, nil, nil)
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
    }

    /// Removes the functions from the connection (they hold an unretained pointer to the guard).
    func uninstall() {
        for name in ["printf", "format"] {
            sqlite3_create_function_v2(connection, name, -1, SQLITE_UTF8, nil, nil, nil, nil, nil)
        }
    }

    /// One call of `printf(format, arguments…)`.
    fileprivate func call(_ context: OpaquePointer, _ arguments: [OpaquePointer?]) {
        guard let format = arguments.first.flatMap({ $0 }), sqlite3_value_type(format) != SQLITE_NULL else {
            sqlite3_result_null(context)
            return
        }
        guard Self.outputBound(format: format, arguments: arguments.dropFirst()) <= limit else {
            sqlite3_result_error_toobig(context)
            return
        }
        guard let statement = statement(arguments: Int32(arguments.count)) else {
            sqlite3_result_error(context, sqlite3_errmsg(helper.handle), -1)
            return
        }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, argument) in arguments.enumerated() {
            sqlite3_bind_value(statement, Int32(index + 1), argument)
        }
        let rc = sqlite3_step(statement)
        guard rc == SQLITE_ROW else {
            sqlite3_result_error(context, sqlite3_errmsg(helper.handle), -1)
            return
        }
        // SQLite's printf gives NULL for a non-NULL format only when its output passed the limit.
        guard sqlite3_column_type(statement, 0) != SQLITE_NULL else {
            sqlite3_result_error_toobig(context)
            return
        }
        sqlite3_result_value(context, sqlite3_column_value(statement, 0))
    }

    private func statement(arguments count: Int32) -> OpaquePointer? {
        if let statement = statements[count] { return statement }
        let placeholders = (1...max(count, 1)).map { "?\($0)" }.joined(separator: ", ")
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(helper.handle, "SELECT printf(\(placeholders))", -1, UInt32(SQLITE_PREPARE_PERSISTENT),
                                 &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            return nil
        }
        statements[count] = statement
        return statement
    }

    /// An upper bound of the characters the format's fields ask for: the format's length plus
    /// every field's width and, except for the text conversions (where it caps the argument),
    /// its precision. Reads `*` widths and precisions from the arguments as SQLite does.
    static func outputBound(format: OpaquePointer, arguments: ArraySlice<OpaquePointer?>) -> Int {
        guard let text = sqlite3_value_text(format) else { return 0 }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(format)))
        var next = arguments.startIndex
        func integerArgument() -> Int32 {
            guard next < arguments.endIndex else { return 0 }
            defer { next += 1 }
            return arguments[next].map { Int32(truncatingIfNeeded: sqlite3_value_int64($0)) } ?? 0
        }
        var bound = bytes.count
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "%") else {
                index += 1
                continue
            }
            index += 1
            while index < bytes.count, Self.flags.contains(bytes[index]) { index += 1 }
            var width = 0
            if index < bytes.count, bytes[index] == UInt8(ascii: "*") {
                width = Int(integerArgument().magnitude)
                index += 1
            } else {
                width = Self.digits(bytes, &index)
            }
            var precision = 0
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "*") {
                    precision = Int(integerArgument().magnitude)
                    index += 1
                } else {
                    precision = Self.digits(bytes, &index)
                }
            }
            while index < bytes.count, bytes[index] == UInt8(ascii: "l") { index += 1 }
            guard index < bytes.count else { break }
            let conversion = bytes[index]
            index += 1
            switch conversion {
            case UInt8(ascii: "%"):
                bound += width
            case UInt8(ascii: "n"):
                break
            case _ where Self.textConversions.contains(conversion):
                bound += width
                next += 1
            default:
                bound += width + precision
                next += 1
            }
        }
        return bound
    }

    /// printf flags SQLite knows.
    private static let flags: Set<UInt8> = Set("-+ #!0,".utf8)
    /// Conversions whose precision caps the text taken from the argument instead of filling.
    private static let textConversions: Set<UInt8> = Set("szqQw".utf8)

    /// A run of decimal digits from `index`, kept to 31 bits as SQLite keeps them.
    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int {
        var value: UInt32 = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = (value &* 10 &+ UInt32(bytes[index] - UInt8(ascii: "0"))) & 0x7fff_ffff
            index += 1
        }
        return Int(value)
    }
}

/// The guarded connection's `printf` and `format`. The guard comes through the user data.
private let guardedPrintf: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, values in
    guard let context, let data = sqlite3_user_data(context) else { return }
    let arguments = Array(UnsafeBufferPointer(start: values, count: Int(count)))
    Unmanaged<PrintfGuard>.fromOpaque(data).takeUnretainedValue().call(context, arguments)
}
