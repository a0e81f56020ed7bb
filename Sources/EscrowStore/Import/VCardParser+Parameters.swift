
extension VCardParser {
    /// How a property value is encoded.
    enum ValueEncoding {
        case plain, quotedPrintable, base64
    }

    /// The character set of a property value.
    enum Charset {
        case utf8, windows1252

        /// The charset named by a `CHARSET` parameter, or nil when it is not supported.
        init?(name: ArraySlice<UInt8>) {
            switch String(decoding: name, as: UTF8.self).uppercased() {
            case "UTF-8", "UTF8", "US-ASCII", "ASCII": self = .utf8
            // ISO-8859-1 is read as its superset windows-1252, as browsers do: Outlook labels
            // windows-1252 text as ISO-8859-1.
            case "ISO-8859-1", "ISO8859-1", "ISO_8859-1", "LATIN1", "LATIN-1", "L1",
                 "WINDOWS-1252", "CP1252", "X-CP1252", "CP-1252":
                self = .windows1252
            default: return nil
            }
        }
    }

    /// The parameters of one content line that matter to the parser.
    struct Parameters {
        /// `TYPE` values and bare 2.1 parameters, lowercased.
        var types: [String] = []
        var encoding: ValueEncoding = .plain
        /// The charset, when a `CHARSET` parameter names one.
        var charset: Charset?
        /// The `CHARSET` parameter as written, when the parser does not support it.
        var unsupportedCharset: String?
        /// The `VALUE` parameter, lowercased (`uri`, `text`, `date`).
        var valueType: String?
        /// Apple's `X-APPLE-OMIT-YEAR`: the placeholder year of a birthday without a year.
        var omitYear: String?

        init() {}

        /// Parses the text between the property name and the colon.
        init(_ bytes: ArraySlice<UInt8>) {
            var start = bytes.startIndex
            var inQuotes = false
            var index = bytes.startIndex
            while index <= bytes.endIndex {
                if index == bytes.endIndex || (bytes[index] == ASCII.semicolon && !inQuotes) {
                    if index > start { add(bytes[start..<index]) }
                    start = index + 1
                } else if bytes[index] == ASCII.quote {
                    inQuotes.toggle()
                }
                index += 1
            }
        }

        private mutating func add(_ parameter: ArraySlice<UInt8>) {
            guard let equals = parameter.firstIndex(of: ASCII.equals) else {
                addBare(ASCII.trimmed(parameter))
                return
            }
            let name = ASCII.trimmed(parameter[..<equals])
            let value = Self.unquoted(parameter[(equals + 1)...])
            if ASCII.equalsIgnoringCase(name, "TYPE") {
                for item in value.split(separator: ASCII.comma) {
                    let type = Self.unquoted(item)
                    if !type.isEmpty { types.append(Self.lowercased(type)) }
                }
            } else if ASCII.equalsIgnoringCase(name, "ENCODING") {
                setEncoding(value)
            } else if ASCII.equalsIgnoringCase(name, "CHARSET") {
                if let known = Charset(name: value) {
                    charset = known
                } else {
                    unsupportedCharset = String(decoding: value, as: UTF8.self)
                }
            } else if ASCII.equalsIgnoringCase(name, "VALUE") {
                valueType = Self.lowercased(value)
            } else if ASCII.equalsIgnoringCase(name, "X-APPLE-OMIT-YEAR") {
                omitYear = String(decoding: value, as: UTF8.self)
            }
        }

        /// A vCard 2.1 parameter without a name: an encoding or a type.
        private mutating func addBare(_ value: ArraySlice<UInt8>) {
            if ASCII.equalsIgnoringCase(value, "QUOTED-PRINTABLE") || ASCII.equalsIgnoringCase(value, "BASE64")
                || ASCII.equalsIgnoringCase(value, "8BIT") || ASCII.equalsIgnoringCase(value, "7BIT") {
                setEncoding(value)
            } else if !value.isEmpty {
                types.append(Self.lowercased(value))
            }
        }

        private mutating func setEncoding(_ value: ArraySlice<UInt8>) {
            if ASCII.equalsIgnoringCase(value, "QUOTED-PRINTABLE") {
                encoding = .quotedPrintable
            } else if ASCII.equalsIgnoringCase(value, "BASE64") || ASCII.equalsIgnoringCase(value, "B") {
                encoding = .base64
            } else {
                encoding = .plain
            }
        }

        /// `bytes` trimmed, without surrounding double quotes.
        private static func unquoted(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            var value = ASCII.trimmed(bytes)
            if value.first == ASCII.quote { value = value.dropFirst() }
            if value.last == ASCII.quote { value = value.dropLast() }
            return ASCII.trimmed(value)
        }

        /// ASCII letters lowercased, as a `String`.
        private static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
            String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
    }
}
