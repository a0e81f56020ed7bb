/// A small, fast JSON text writer for the escrow's own encodings (multi-valued columns, frame
/// rendering). Output is compact, keys in the order written, strings escaped per RFC 8259.
public struct JSONWriter: Sendable {
    /// The JSON written so far.
    public private(set) var text = ""

    public init() {}

    /// Writes a JSON string.
    public mutating func string(_ value: String) {
        text.append("\"")
        var needsEscape = false
        for byte in value.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            needsEscape = true
            break
        }
        if !needsEscape {
            text.append(value)
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": text.append("\\\"")
                case "\\": text.append("\\\\")
                case "\n": text.append("\\n")
                case "\r": text.append("\\r")
                case "\t": text.append("\\t")
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                    } else {
                        text.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        text.append("\"")
    }

    /// Writes `null`.
    public mutating func null() { text.append("null") }

    /// Writes a boolean.
    public mutating func bool(_ value: Bool) { text.append(value ? "true" : "false") }

    /// Writes an integer.
    public mutating func int(_ value: Int64) { text.append(String(value)) }

    /// Writes a number; non-finite values (which JSON cannot hold) are written as null.
    public mutating func double(_ value: Double) {
        if value.isFinite { text.append(value.description) } else { null() }
    }

    /// Writes an already-encoded JSON value.
    public mutating func raw(_ json: String) { text.append(json) }

    /// Writes an array whose elements `element` writes.
    public mutating func array<S: Sequence>(_ items: S, _ element: (inout JSONWriter, S.Element) -> Void) {
        text.append("[")
        var first = true
        for item in items {
            if !first { text.append(",") }
            first = false
            element(&self, item)
        }
        text.append("]")
    }

    /// Writes an object whose fields `body` adds.
    public mutating func object(_ body: (inout ObjectWriter) -> Void) {
        // Move the text into the object writer and back, so appends never copy it.
        var object = ObjectWriter(writer: JSONWriter())
        swap(&object.writer, &self)
        body(&object)
        swap(&object.writer, &self)
        text.append(object.wroteField ? "}" : "{}")
    }

    /// Adds fields to an object being written.
    public struct ObjectWriter {
        fileprivate var writer: JSONWriter
        fileprivate var wroteField = false

        /// Adds a field whose value `value` writes.
        public mutating func field(_ name: String, _ value: (inout JSONWriter) -> Void) {
            writer.text.append(wroteField ? "," : "{")
            wroteField = true
            writer.string(name)
            writer.text.append(":")
            value(&writer)
        }

        /// Adds a string field; nil is written as null.
        public mutating func field(_ name: String, _ value: String?) {
            field(name) { writer in
                if let value { writer.string(value) } else { writer.null() }
            }
        }
    }
}
