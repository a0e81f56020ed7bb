import CSQLite
import EscrowCore

/// The text parameters of one row, packed into one reusable byte buffer, so a writer can bind
/// them without SQLite copying each value (`SQLITE_STATIC`): the buffer outlives the step that
/// reads it. Reusing one arena for every row of an import avoids an allocation per value.
public struct TextArena {
    fileprivate var bytes: [UInt8] = []
    fileprivate var spans: [(index: Int32, offset: Int, count: Int)] = []
    fileprivate var nulls: [Int32] = []

    public init() {
        bytes.reserveCapacity(4096)
    }

    /// Forgets the previous row, keeping the memory.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        nulls.removeAll(keepingCapacity: true)
    }

    /// Sets text parameter `index` (1-based); nil binds NULL.
    public mutating func set(_ value: String?, at index: Int32) {
        guard let value else {
            nulls.append(index)
            return
        }
        let offset = bytes.count
        bytes.appendUTF8(value)
        spans.append((index, offset, bytes.count - offset))
    }
}

extension TextArena {
    /// Sets text parameter `index` to JSON written by `body`.
    public mutating func setJSON(at index: Int32, _ body: (inout JSONWriter) -> Void) {
        let offset = bytes.count
        JSONWriter.append(to: &bytes, body)
        spans.append((index, offset, bytes.count - offset))
    }

    /// Sets text parameter `index` to a timestamp (`Timestamp.format`); nil binds NULL.
    public mutating func setTimestamp(_ secondsSince1970: Double?, at index: Int32) {
        guard let secondsSince1970 else {
            nulls.append(index)
            return
        }
        let offset = bytes.count
        Timestamp.write(secondsSince1970: secondsSince1970, to: &bytes)
        spans.append((index, offset, bytes.count - offset))
    }
}

extension Statement {
    /// Binds the arena's text parameters in place, runs the statement to completion, then resets
    /// it and clears all bindings. Non-text parameters are bound before the call.
    public func run(_ arena: TextArena) throws(StoreError) {
        try arena.bytes.withUnsafeBufferPointer { (buffer) throws(StoreError) in
            defer { reset() }
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            for span in arena.spans {
                let rc: Int32
                if let base {
                    // SQLITE_STATIC (nil): SQLite reads the bytes during the step, while `buffer` lives.
                    rc = sqlite3_bind_text(handle, span.index, base + span.offset, Int32(span.count), nil)
                } else {
                    rc = sqlite3_bind_text(handle, span.index, "", 0, sqliteTransient)
                }
                guard rc == SQLITE_OK else { throw StoreError(code: rc, message: "cannot bind parameter \(span.index)", sql: sql) }
            }
            for index in arena.nulls {
                sqlite3_bind_null(handle, index)
            }
            while try step() {}
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
