/// A small, fast JSON text writer for the escrow's own encodings (multi-valued columns, frame
/// rendering). Output is compact, keys in the order written, strings escaped per RFC 8259.
///
/// It writes UTF-8 bytes into one growing buffer; `text` turns them into a `String` once.
public struct JSONWriter: Sendable {
    /// The UTF-8 bytes written so far.
    public var bytes: [UInt8] { storage }

    @usableFromInline
    var storage: [UInt8] = []

    /// Whether strings are written for a person's screen as well as for a parser: DEL, C1
    /// controls and the characters `DisplayText` shows escaped (bidirectional overrides,
    /// invisible and unassigned characters) are written as `\uHHHH` too. The text decodes to the
    /// same strings either way.
    @usableFromInline
    var escapesUnsafeCharacters = false

    @inlinable
    public init(capacity: Int = 64) {
        storage.reserveCapacity(capacity)
    }

    /// A writer for output a person may read on a terminal (see `escapesUnsafeCharacters`).
    public static func forDisplay(capacity: Int = 64) -> JSONWriter {
        var writer = JSONWriter(capacity: capacity)
        writer.escapesUnsafeCharacters = true
        return writer
    }

    /// The JSON written so far.
    @inlinable
    public var text: String { String(decoding: storage, as: UTF8.self) }

    /// Writes JSON at the end of `buffer` (no copy of what is already there).
    @inlinable
    public static func append(to buffer: inout [UInt8], _ body: (inout JSONWriter) -> Void) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.storage, &buffer)
        body(&writer)
        swap(&writer.storage, &buffer)
    }

    @usableFromInline
    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Writes a JSON string.
    @inlinable
    public mutating func string(_ value: String) {
        if escapesUnsafeCharacters, DisplayText.needsEscaping(value) {
            displayString(value)
            return
        }
        storage.append(0x22)
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                switch byte {
                case 0x22: storage.append(contentsOf: [0x5C, 0x22])
                case 0x5C: storage.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: storage.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: storage.append(contentsOf: [0x5C, 0x72])
                case 0x09: storage.append(contentsOf: [0x5C, 0x74])
                default:
                    storage.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]])
                }
            }
            storage.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        storage.append(0x22)
    }

    /// Writes a JSON string with every character `DisplayText` would escape as `\uHHHH`.
    @usableFromInline
    mutating func displayString(_ value: String) {
        storage.append(0x22)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": storage.append(contentsOf: [0x5C, 0x22])
            case "\\": storage.append(contentsOf: [0x5C, 0x5C])
            case "\n": storage.append(contentsOf: [0x5C, 0x6E])
            case "\r": storage.append(contentsOf: [0x5C, 0x72])
            case "\t": storage.append(contentsOf: [0x5C, 0x74])
            default:
                if DisplayText.isUnsafe(scalar) {
                    if scalar.value > 0xFFFF {
                        let value = scalar.value - 0x10000
                        appendUnicodeEscape(UInt16(0xD800 + (value >> 10)))
                        appendUnicodeEscape(UInt16(0xDC00 + (value & 0x3FF)))
                    } else {
                        appendUnicodeEscape(UInt16(scalar.value))
                    }
                } else {
                    storage.append(contentsOf: String(scalar).utf8)
                }
            }
        }
        storage.append(0x22)
    }

    @usableFromInline
    mutating func appendUnicodeEscape(_ unit: UInt16) {
        storage.append(contentsOf: [0x5C, 0x75])
        for shift in stride(from: 12, through: 0, by: -4) {
            storage.append(Self.hexDigits[Int((unit >> UInt16(shift)) & 0x0F)])
        }
    }

    /// Writes `null`.
    @inlinable
    public mutating func null() { storage.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }

    /// Writes a boolean.
    @inlinable
    public mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    /// Writes an integer.
    @inlinable
    public mutating func int(_ value: Int64) { raw(String(value)) }

    /// Writes a number; non-finite values (which JSON cannot hold) are written as null.
    @inlinable
    public mutating func double(_ value: Double) {
        if value.isFinite { raw(value.description) } else { null() }
    }

    /// Writes an already-encoded JSON value.
    @inlinable
    public mutating func raw(_ json: String) { storage.append(contentsOf: json.utf8) }

    /// Writes an array whose elements `element` writes.
    @inlinable
    public mutating func array<S: Sequence>(_ items: S, _ element: (inout JSONWriter, S.Element) -> Void) {
        storage.append(0x5B)
        var first = true
        for item in items {
            if !first { storage.append(0x2C) }
            first = false
            element(&self, item)
        }
        storage.append(0x5D)
    }

    /// Writes an object whose fields `body` adds.
    @inlinable
    public mutating func object(_ body: (inout ObjectWriter) -> Void) {
        // Move the buffer into the object writer and back, so appends never copy it.
        var object = ObjectWriter(writer: JSONWriter(capacity: 0))
        swap(&object.writer, &self)
        body(&object)
        swap(&object.writer, &self)
        if object.wroteField { storage.append(0x7D) } else { storage.append(contentsOf: [0x7B, 0x7D]) }
    }

    /// Adds fields to an object being written.
    public struct ObjectWriter {
        @usableFromInline var writer: JSONWriter
        @usableFromInline var wroteField = false

        @usableFromInline
        init(writer: JSONWriter) {
            self.writer = writer
        }

        /// Adds a field whose value `value` writes.
        @inlinable
    public mutating func field(_ name: String, _ value: (inout JSONWriter) -> Void) {
            writer.storage.append(wroteField ? 0x2C : 0x7B)
            wroteField = true
            writer.string(name)
            writer.storage.append(0x3A)
            value(&writer)
        }

        /// Adds a string field; nil is written as null.
        @inlinable
    public mutating func field(_ name: String, _ value: String?) {
            field(name) { writer in
                if let value { writer.string(value) } else { writer.null() }
            }
        }
    }
}
