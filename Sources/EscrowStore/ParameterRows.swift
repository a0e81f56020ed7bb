import CSQLite
import EscrowCore

/// The parameters of a run of rows for one insert statement, packed into a few buffers: text in
/// one byte buffer that SQLite reads in place (`SQLITE_STATIC`, instead of copying each value),
/// numbers and NULLs beside it. Writers fill one value per few hundred rows, on a second thread
/// (`RowPipeline`) while the first inserts the rows before.
struct ParameterRows: Sendable {
    enum Value: Sendable {
        case text(offset: Int, count: Int)
        case integer(Int64)
        case real(Double)
        case null
    }

    fileprivate var bytes: [UInt8] = []
    fileprivate var parameters: [(index: Int32, value: Value)] = []
    /// Per row, the end of its parameters in `parameters`.
    fileprivate var rowEnds: [Int] = []

    init(rows: Int, parametersPerRow: Int, bytesPerRow: Int) {
        bytes.reserveCapacity(rows * bytesPerRow)
        parameters.reserveCapacity(rows * parametersPerRow)
        rowEnds.reserveCapacity(rows)
    }

    var rowCount: Int { rowEnds.count }

    /// Closes the current row: the parameters set since the previous call belong to it.
    mutating func endRow() {
        rowEnds.append(parameters.count)
    }

    /// Sets text parameter `index` (1-based) of the current row; nil binds NULL.
    mutating func set(_ value: String?, at index: Int32) {
        guard let value else { return parameters.append((index, .null)) }
        let offset = bytes.count
        bytes.appendUTF8(value)
        parameters.append((index, .text(offset: offset, count: bytes.count - offset)))
    }

    /// Sets text parameter `index` to JSON written by `body`.
    mutating func setJSON(at index: Int32, _ body: (inout JSONWriter) -> Void) {
        let offset = bytes.count
        JSONWriter.append(to: &bytes, body)
        parameters.append((index, .text(offset: offset, count: bytes.count - offset)))
    }

    /// Sets text parameter `index` to a timestamp (`Timestamp.format`); nil binds NULL.
    mutating func setTimestamp(_ secondsSince1970: Double?, at index: Int32) {
        guard let secondsSince1970 else { return parameters.append((index, .null)) }
        let offset = bytes.count
        Timestamp.write(secondsSince1970: secondsSince1970, to: &bytes)
        parameters.append((index, .text(offset: offset, count: bytes.count - offset)))
    }

    /// Sets integer parameter `index`; nil binds NULL.
    mutating func set(integer value: Int64?, at index: Int32) {
        parameters.append((index, value.map(Value.integer) ?? .null))
    }

    /// Sets real parameter `index`; nil binds NULL.
    mutating func set(real value: Double?, at index: Int32) {
        parameters.append((index, value.map(Value.real) ?? .null))
    }
}

extension Statement {
    /// Binds each row of `rows` in turn and runs the statement to completion, calling `done`
    /// after each row (to read `changes`). The statement is reset with its bindings cleared
    /// after every row.
    func run(_ rows: ParameterRows, afterEachRow done: () -> Void) throws(StoreError) {
        try rows.bytes.withUnsafeBufferPointer { (buffer) throws(StoreError) in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            var start = 0
            for end in rows.rowEnds {
                defer { reset() }
                for (index, value) in rows.parameters[start..<end] {
                    let rc = switch value {
                    case .text(let offset, let count):
                        // SQLITE_STATIC (nil): SQLite reads the bytes during the step, while `buffer` lives.
                        if let base { sqlite3_bind_text(handle, index, base + offset, Int32(count), nil) }
                        else { sqlite3_bind_text(handle, index, "", 0, sqliteTransient) }
                    case .integer(let number): sqlite3_bind_int64(handle, index, number)
                    case .real(let number): sqlite3_bind_double(handle, index, number)
                    case .null: sqlite3_bind_null(handle, index)
                    }
                    guard rc == SQLITE_OK else {
                        throw StoreError(code: rc, message: "cannot bind parameter \(index)", sql: sql)
                    }
                }
                while try step() {}
                done()
                start = end
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of `text` (one copy from the string's storage).
    mutating func appendUTF8(_ text: String) {
        let appended: Void? = text.utf8.withContiguousStorageIfAvailable { append(contentsOf: $0) }
        if appended == nil { append(contentsOf: text.utf8) }
    }
}
