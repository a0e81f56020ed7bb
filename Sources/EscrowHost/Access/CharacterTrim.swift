import CSQLite

/// `trim`, `ltrim` and `rtrim` for access SQL: SQLite's own results, in time linear in the text.
///
/// SQLite (3.40) compares every character of the set at each position it trims, so one call
/// costs the characters trimmed times the set's size: a 10,000-character set over 1 MB of text
/// held the connection for 86 s inside one call, where neither the progress handler nor the
/// watchdog's `sqlite3_interrupt` reaches. These replacements look each position up in a table
/// of the set's characters instead, and otherwise follow SQLite's `trimFunc`: the set is split
/// into characters the way SQLite splits it (a byte, or a lead byte from 0xC0 with the
/// continuation bytes after it; it ends at a NUL), where several characters match at a position
/// the one earliest in the set wins, and the result is the text's remaining bytes.
///
/// Thread safety: the functions keep no state; SQLite calls them on the connection's thread.
enum CharacterTrim {
    /// Installs `trim`, `ltrim` and `rtrim` (one and two arguments) on `connection`.
    static func install(on connection: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for (name, sides) in [("ltrim", 1), ("rtrim", 2), ("trim", 3)] {
            let context = UnsafeMutableRawPointer(bitPattern: sides)
            for arguments: Int32 in [1, 2] {
                sqlite3_create_function_v2(connection, name, arguments, flags, context, linearTrim, nil, nil, nil)
            }
        }
    }

    /// The characters of a trim set, by their bytes, each with its place in the set.
    struct Set {
        /// For each byte value, the place of the one-byte character it is, or `Int.max`.
        var single = [Int](repeating: .max, count: 256)
        /// Characters of two bytes or more (a lead byte from 0xC0 and continuation bytes).
        var multiple: [[UInt8]: Int] = [:]
        /// The lengths of `multiple`'s characters, shortest first.
        var lengths: [Int] = []

        /// Splits `bytes` as SQLite's `SQLITE_SKIP_UTF8` does, up to the first NUL.
        init(_ bytes: UnsafeRawBufferPointer) {
            var index = 0
            var place = 0
            var lengthSet: Swift.Set<Int> = []
            while index < bytes.count, bytes[index] != 0 {
                let start = index
                index += 1
                if bytes[start] >= 0xC0 {
                    while index < bytes.count, bytes[index] & 0xC0 == 0x80 { index += 1 }
                }
                if index - start == 1 {
                    single[Int(bytes[start])] = min(single[Int(bytes[start])], place)
                } else {
                    let character = Array(bytes[start..<index])
                    if multiple[character] == nil { multiple[character] = place }
                    lengthSet.insert(character.count)
                }
                place += 1
            }
            lengths = lengthSet.sorted()
        }

        var isEmpty: Bool { multiple.isEmpty && !single.contains { $0 != .max } }

        /// The length of the set's earliest character that the text holds at `range`'s start
        /// (`fromEnd`: at its end), or nil when none does.
        func match(in text: UnsafeRawBufferPointer, _ range: Range<Int>, fromEnd: Bool) -> Int? {
            guard !range.isEmpty else { return nil }
            var best = single[Int(fromEnd ? text[range.upperBound - 1] : text[range.lowerBound])]
            var length = best == .max ? 0 : 1
            for candidate in lengths where candidate <= range.count {
                let bytes = fromEnd ? text[(range.upperBound - candidate)..<range.upperBound]
                    : text[range.lowerBound..<(range.lowerBound + candidate)]
                if let place = multiple[Array(bytes)], place < best {
                    best = place
                    length = candidate
                }
            }
            return length == 0 ? nil : length
        }
    }

    /// `trim(text)`, `trim(text, set)` and the one-sided forms, as SQLite's `trimFunc`.
    fileprivate static func trim(_ context: OpaquePointer, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>) {
        guard sqlite3_value_type(values[0]) != SQLITE_NULL, let start = sqlite3_value_text(values[0]) else { return }
        let text = UnsafeRawBufferPointer(start: start, count: Int(sqlite3_value_bytes(values[0])))
        let set: Set
        if count == 1 {
            set = spaceOnly
        } else {
            guard let characters = sqlite3_value_text(values[1]) else { return }
            set = Set(UnsafeRawBufferPointer(start: characters, count: Int(sqlite3_value_bytes(values[1]))))
        }
        let sides = Int(bitPattern: sqlite3_user_data(context))
        var range = 0..<text.count
        if !set.isEmpty {
            if sides & 1 != 0 {
                while let length = set.match(in: text, range, fromEnd: false) { range = (range.lowerBound + length)..<range.upperBound }
            }
            if sides & 2 != 0 {
                while let length = set.match(in: text, range, fromEnd: true) { range = range.lowerBound..<(range.upperBound - length) }
            }
        }
        let remaining = UnsafeRawBufferPointer(rebasing: text[range])
        guard let base = remaining.baseAddress, !remaining.isEmpty else {
            sqlite3_result_text(context, "", 0, sqliteTransient)
            return
        }
        sqlite3_result_text64(context, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(remaining.count),
                              sqliteTransient, UInt8(SQLITE_UTF8))
    }

    /// The set of the one-argument forms: a space.
    private static let spaceOnly = [UInt8(ascii: " ")].withUnsafeBytes { Set($0) }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bytes before returning.
    private static let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

private let linearTrim: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, values in
    guard let context, let values else { return }
    CharacterTrim.trim(context, count, values)
}
