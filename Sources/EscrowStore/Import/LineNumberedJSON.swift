import Foundation

/// A JSON value that remembers the line where it starts, so that import errors can point at the
/// offending object. `JSONSerialization` and `JSONDecoder` report no line numbers.
///
/// Thread safety: an immutable value; `Sendable`.
struct LineNumberedJSON: Sendable {
    /// The kinds of JSON values; objects keep their members in file order.
    indirect enum Value: Sendable {
        case object([(key: String, value: LineNumberedJSON)])
        case array([LineNumberedJSON])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    var value: Value
    /// The 1-based line of the value's first character.
    var line: Int

    /// The member of an object with this key (the last one, when a key repeats), or nil.
    subscript(key: String) -> LineNumberedJSON? {
        guard case .object(let members) = value else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// The elements of an array, or nil for other values.
    var array: [LineNumberedJSON]? {
        if case .array(let elements) = value { return elements }
        return nil
    }

    /// The text of a string, or nil for other values.
    var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    /// The value of a number, or nil for other values.
    var number: Double? {
        if case .number(let number) = value { return number }
        return nil
    }

    /// Whether the value is JSON `null`.
    var isNull: Bool {
        if case .null = value { return true }
        return false
    }

    /// A word for the value's kind, for messages ("an object", "a string", ...).
    var kind: String {
        switch value {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    /// Parses a complete JSON text (RFC 8259), with or without a UTF-8 byte order mark.
    ///
    /// - Parameters:
    ///   - data: the UTF-8 bytes of the document.
    ///   - file: the file's name, used in error messages only.
    ///   - maximumDepth: how deeply arrays and objects may nest before the text is rejected.
    /// - Throws: `ImportError` with the line of the first syntax error.
    static func parse(_ data: Data, file: String, maximumDepth: Int = 512) throws(ImportError) -> LineNumberedJSON {
        var reader = Reader(bytes: [UInt8](data), file: file, maximumDepth: maximumDepth)
        return try reader.document()
    }

    /// A recursive-descent reader over the bytes, counting lines as it goes.
    private struct Reader {
        let bytes: [UInt8]
        let file: String
        let maximumDepth: Int
        var index = 0
        var line = 1
        var depth = 0

        init(bytes: [UInt8], file: String, maximumDepth: Int) {
            self.bytes = bytes
            self.file = file
            self.maximumDepth = maximumDepth
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        mutating func document() throws(ImportError) -> LineNumberedJSON {
            skipWhitespace()
            guard index < bytes.count else { throw error("the file is empty: expected a JSON object") }
            let value = try readValue()
            skipWhitespace()
            guard index == bytes.count else {
                throw error("unexpected \(describeCurrent()) after the end of the JSON document: remove it")
            }
            return value
        }

        private mutating func readValue() throws(ImportError) -> LineNumberedJSON {
            skipWhitespace()
            guard index < bytes.count else { throw error("the JSON text ends too early: the file looks truncated") }
            let startLine = line
            switch bytes[index] {
            case UInt8(ascii: "{"): return LineNumberedJSON(value: try readObject(), line: startLine)
            case UInt8(ascii: "["): return LineNumberedJSON(value: try readArray(), line: startLine)
            case UInt8(ascii: "\""): return LineNumberedJSON(value: .string(try readString()), line: startLine)
            case UInt8(ascii: "t"): try readLiteral("true"); return LineNumberedJSON(value: .bool(true), line: startLine)
            case UInt8(ascii: "f"): try readLiteral("false"); return LineNumberedJSON(value: .bool(false), line: startLine)
            case UInt8(ascii: "n"): try readLiteral("null"); return LineNumberedJSON(value: .null, line: startLine)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return LineNumberedJSON(value: .number(try readNumber()), line: startLine)
            default:
                throw error("unexpected \(describeCurrent()): expected a JSON value (object, array, string, number, true, false or null)")
            }
        }

        private mutating func readObject() throws(ImportError) -> Value {
            try enter()
            index += 1
            var members: [(key: String, value: LineNumberedJSON)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("expected a member name in double quotes, found \(describeCurrent())")
                }
                let key = try readString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw error("expected ':' after the member name \"\(key)\", found \(describeCurrent())")
                }
                index += 1
                members.append((key: key, value: try readValue()))
                skipWhitespace()
                guard index < bytes.count else { throw error("the JSON text ends inside an object: the file looks truncated") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    depth -= 1
                    return .object(members)
                } else {
                    throw error("expected ',' or '}' in an object, found \(describeCurrent())")
                }
            }
        }

        private mutating func readArray() throws(ImportError) -> Value {
            try enter()
            index += 1
            var elements: [LineNumberedJSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            }
            while true {
                elements.append(try readValue())
                skipWhitespace()
                guard index < bytes.count else { throw error("the JSON text ends inside an array: the file looks truncated") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    depth -= 1
                    return .array(elements)
                } else {
                    throw error("expected ',' or ']' in an array, found \(describeCurrent())")
                }
            }
        }

        private mutating func enter() throws(ImportError) {
            depth += 1
            guard depth <= maximumDepth else {
                throw error("arrays and objects nest more than \(maximumDepth) levels deep: this is not a location file")
            }
        }

        private mutating func readString() throws(ImportError) -> String {
            let startLine = line
            index += 1
            var utf8: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { break }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"): utf8.append(contentsOf: try readUnicodeEscape())
                    default:
                        throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in a string: only \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\u with four hex digits are allowed")
                    }
                case 0x0A:
                    throw error("a string is not closed before the end of the line: add the closing '\"'", line: startLine)
                case 0x00..<0x20:
                    throw error("a control character (byte \(byte)) inside a string must be escaped")
                default:
                    utf8.append(byte)
                    index += 1
                }
            }
            throw error("a string is not closed: the file ends inside it", line: startLine)
        }

        /// Reads the four hex digits after `\u` (and a low surrogate's `\u` escape after a high one).
        private mutating func readUnicodeEscape() throws(ImportError) -> [UInt8] {
            var code = try readHex4()
            if (0xD800..<0xDC00).contains(code) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("a \\u escape of a high surrogate is not followed by a low surrogate")
                }
                index += 2
                let low = try readHex4()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw error("a \\u escape of a high surrogate is not followed by a low surrogate")
                }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(code) {
                throw error("a \\u escape holds a lone low surrogate")
            }
            guard let scalar = Unicode.Scalar(code) else { throw error("a \\u escape is not a Unicode scalar") }
            return Array(String(Character(scalar)).utf8)
        }

        private mutating func readHex4() throws(ImportError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits") }
            var code: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("a \\u escape needs four hex digits")
                }
                code = code << 4 | UInt32(digit)
                index += 1
            }
            return code
        }

        private mutating func readNumber() throws(ImportError) -> Double {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw error("'-' must be followed by digits in a number") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard skipDigits() > 0 else { throw error("a number's '.' must be followed by digits") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard skipDigits() > 0 else { throw error("a number's exponent must have digits") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw error("the number \(text) is out of range") }
            return value
        }

        private mutating func skipDigits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }

        private mutating func readLiteral(_ word: StaticString) throws(ImportError) {
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard index + expected.count <= bytes.count, bytes[index..<(index + expected.count)].elementsEqual(expected) else {
                throw error("unexpected \(describeCurrent()): expected \(word) (JSON literals are lowercase and strings need double quotes)")
            }
            index += expected.count
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x0A: line += 1
                case 0x20, 0x09, 0x0D: break
                default: return
                }
                index += 1
            }
        }

        private func describeCurrent() -> String {
            guard index < bytes.count else { return "end of file" }
            let byte = bytes[index]
            if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return "byte 0x\(String(byte, radix: 16))"
        }

        private func error(_ reason: String, line: Int? = nil) -> ImportError {
            ImportError(file: file, line: line ?? self.line, reason: "invalid JSON: \(reason)")
        }
    }
}
