import Foundation

/// Parses vCard files (versions 2.1, 3.0 and 4.0) into ``ContactRecord`` values.
///
/// Reads what Apple Contacts, Google Contacts, Android and Outlook export: CRLF, LF or CR line
/// endings, a UTF-8 byte order mark, folded lines, vCard 2.1 quoted-printable values with soft line
/// breaks and `CHARSET` parameters (UTF-8, ISO-8859-1, windows-1252), bare 2.1 parameters
/// (`TEL;HOME;VOICE:`), `TYPE=` lists, and Apple's grouped labels (`item1.TEL` with
/// `item1.X-ABLabel`). Photos, sounds, keys and unknown or `X-` properties are skipped.
///
/// The parser works on the file's bytes; it never splits the file into `String` lines.
///
/// Thread safety: `VCardParser` has no state; call it from any thread or task concurrently.
public enum VCardParser {
    /// Parses every card in a vCard file (2.1, 3.0 or 4.0; several cards per file).
    ///
    /// Labels are readable words derived from `TYPE` parameters or Apple labels (`"mobile"`,
    /// `"home"`, `"work fax"`, a custom label as written); a value without a type has a nil label.
    /// Birthdays are normalised to `YYYY-MM-DD`, or `--MM-DD` when the year is unknown.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - file: The file's name, used only in error messages.
    /// - Returns: One record per `BEGIN:VCARD` … `END:VCARD` card, in file order.
    /// - Throws: ``ImportError`` with the 1-based physical line when the file is not a well-formed
    ///   vCard file: no card at all, content outside a card, a card without `END:VCARD`, an
    ///   `END:VCARD` without `BEGIN:VCARD`, a nested card, a line without a colon, an unsupported
    ///   `VERSION`, invalid quoted-printable, an unsupported or undecodable charset, or a `BDAY`
    ///   that is not a date. Nothing is returned when any card is malformed.
    public static func parse(_ data: Data, file: String) throws(ImportError) -> [ContactRecord] {
        var reader = VCardReader(bytes: [UInt8](data), file: file)
        return try reader.readCards()
    }
}

// The parser's parts are nested in `VCardParser` so their short names stay out of the module's namespace.
extension VCardParser {
    // MARK: - Bytes

    /// ASCII bytes the parser looks for.
    private enum ASCII {
        static let tab: UInt8 = 0x09
        static let lf: UInt8 = 0x0A
        static let cr: UInt8 = 0x0D
        static let space: UInt8 = 0x20
        static let quote: UInt8 = 0x22
        static let comma: UInt8 = 0x2C
        static let dash: UInt8 = 0x2D
        static let dot: UInt8 = 0x2E
        static let colon: UInt8 = 0x3A
        static let semicolon: UInt8 = 0x3B
        static let equals: UInt8 = 0x3D
        static let upperT: UInt8 = 0x54
        static let lowerT: UInt8 = 0x74
        static let backslash: UInt8 = 0x5C
        static let lowerN: UInt8 = 0x6E
        static let upperN: UInt8 = 0x4E

        static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }
        static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab || byte == cr || byte == lf }
        static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        static func uppercased(_ byte: UInt8) -> UInt8 { byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte }

        /// The value of a hexadecimal digit (either case), or nil.
        static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x41...0x46: return byte - 0x41 + 10
            case 0x61...0x66: return byte - 0x61 + 10
            default: return nil
            }
        }

        /// Whether `bytes` equals the ASCII `literal`, ignoring case. `literal` must be uppercase.
        static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ literal: StaticString) -> Bool {
            guard bytes.count == literal.utf8CodeUnitCount else { return false }
            return literal.withUTF8Buffer { expected in
                var index = bytes.startIndex
                for byte in expected {
                    if uppercased(bytes[index]) != byte { return false }
                    index += 1
                }
                return true
            }
        }

        /// Whether `bytes` begins with the ASCII `literal`, ignoring case. `literal` must be uppercase.
        static func hasPrefixIgnoringCase(_ bytes: ArraySlice<UInt8>, _ literal: StaticString) -> Bool {
            guard bytes.count >= literal.utf8CodeUnitCount else { return false }
            let prefix = bytes.prefix(literal.utf8CodeUnitCount)
            return equalsIgnoringCase(prefix, literal)
        }

        /// Whether `bytes` contains the ASCII `literal`, ignoring case. `literal` must be uppercase.
        static func containsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ literal: StaticString) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard length > 0, bytes.count >= length else { return false }
            var start = bytes.startIndex
            while start + length <= bytes.endIndex {
                if equalsIgnoringCase(bytes[start..<(start + length)], literal) { return true }
                start += 1
            }
            return false
        }

        /// `bytes` without leading and trailing spaces, tabs, CRs and LFs.
        static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            var start = bytes.startIndex
            var end = bytes.endIndex
            while start < end, isWhitespace(bytes[start]) { start += 1 }
            while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
            return bytes[start..<end]
        }
    }

    // MARK: - Logical lines

    /// Splits a file into physical lines and joins them into logical (unfolded) lines.
    ///
    /// A physical line that starts with a space or tab continues the previous one (the one whitespace
    /// character is removed). In a quoted-printable property, a line ending in `=` continues on the
    /// next line (a soft line break; the `=` is removed). Blank lines are skipped.
    private struct LogicalLines {
        private let bytes: [UInt8]
        private let lines: [Range<Int>]
        private var nextLine = 0
        /// The current logical line, unfolded; valid after ``advance()`` returned a line number.
        private(set) var buffer: [UInt8] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
            var start = 0
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
            var lines: [Range<Int>] = []
            lines.reserveCapacity(bytes.count / 24 + 1)
            bytes.withUnsafeBufferPointer { raw in
                var lineStart = start
                var index = start
                let count = raw.count
                while index < count {
                    let byte = raw[index]
                    if byte == ASCII.lf {
                        lines.append(lineStart..<index)
                        index += 1
                        lineStart = index
                    } else if byte == ASCII.cr {
                        lines.append(lineStart..<index)
                        index += 1
                        if index < count, raw[index] == ASCII.lf { index += 1 }
                        lineStart = index
                    } else {
                        index += 1
                    }
                }
                if lineStart < count { lines.append(lineStart..<count) }
            }
            self.lines = lines
        }

        /// Moves to the next non-blank logical line and unfolds it into ``buffer``.
        ///
        /// - Returns: The 1-based physical line where the logical line starts, or nil at the end.
        mutating func advance() -> Int? {
            while nextLine < lines.count {
                let range = lines[nextLine]
                let number = nextLine + 1
                nextLine += 1
                var start = range.lowerBound
                while start < range.upperBound, ASCII.isBlank(bytes[start]) { start += 1 }
                if start == range.upperBound { continue }
                buffer.removeAll(keepingCapacity: true)
                buffer.append(contentsOf: bytes[start..<range.upperBound])
                unfold()
                return number
            }
            return nil
        }

        /// Appends the continuation lines of the current logical line to ``buffer``.
        private mutating func unfold() {
            var quotedPrintable: Bool?
            while nextLine < lines.count {
                let next = lines[nextLine]
                if endsWithSoftLineBreak(&quotedPrintable), !startsCardBoundary(next) {
                    while let last = buffer.last, ASCII.isBlank(last) { buffer.removeLast() }
                    buffer.removeLast()
                    buffer.append(contentsOf: bytes[next])
                    nextLine += 1
                } else if !next.isEmpty, ASCII.isBlank(bytes[next.lowerBound]) {
                    buffer.append(contentsOf: bytes[(next.lowerBound + 1)..<next.upperBound])
                    nextLine += 1
                } else {
                    return
                }
            }
        }

        /// Whether ``buffer`` is a quoted-printable property whose last line ends in `=`.
        private func endsWithSoftLineBreak(_ quotedPrintable: inout Bool?) -> Bool {
            var end = buffer.count
            while end > 0, ASCII.isBlank(buffer[end - 1]) { end -= 1 }
            guard end > 0, buffer[end - 1] == ASCII.equals else { return false }
            if let quotedPrintable { return quotedPrintable }
            let colon = buffer.firstIndex(of: ASCII.colon) ?? buffer.count
            let isQuotedPrintable = ASCII.containsIgnoringCase(buffer[..<colon], "QUOTED-PRINTABLE")
            quotedPrintable = isQuotedPrintable
            return isQuotedPrintable
        }

        /// Whether a physical line is `BEGIN:VCARD` or `END:VCARD`, which a soft line break never joins.
        private func startsCardBoundary(_ range: Range<Int>) -> Bool {
            let line = bytes[range]
            return ASCII.hasPrefixIgnoringCase(line, "END:VCARD") || ASCII.hasPrefixIgnoringCase(line, "BEGIN:VCARD")
        }
    }

    // MARK: - Content lines

    /// The properties the parser reads; everything else is skipped.
    private enum Property {
        case begin, end, version, name, formattedName, nickname, organization, title
        case phone, email, address, url, birthday, note, uid, categories, kind, appleShowAs, appleLabel
        case other

        /// The property a name (any case) stands for.
        init(_ name: ArraySlice<UInt8>) {
            let candidates: [(StaticString, Property)]
            switch name.count {
            case 1: candidates = [("N", .name)]
            case 2: candidates = [("FN", .formattedName)]
            case 3: candidates = [("TEL", .phone), ("ADR", .address), ("END", .end), ("ORG", .organization),
                                  ("URL", .url), ("UID", .uid)]
            case 4: candidates = [("NOTE", .note), ("BDAY", .birthday), ("KIND", .kind)]
            case 5: candidates = [("EMAIL", .email), ("BEGIN", .begin), ("TITLE", .title)]
            case 7: candidates = [("VERSION", .version)]
            case 8: candidates = [("NICKNAME", .nickname)]
            case 9: candidates = [("X-ABLABEL", .appleLabel)]
            case 10: candidates = [("CATEGORIES", .categories), ("X-ABSHOWAS", .appleShowAs)]
            default: candidates = []
            }
            for (literal, property) in candidates where ASCII.equalsIgnoringCase(name, literal) {
                self = property
                return
            }
            self = .other
        }
    }

    /// One content line, `[group.]NAME[;params]:value`, as ranges into the logical line.
    private struct ContentLine {
        var property: Property
        var group: Range<Int>?
        var parameters: Range<Int>
        var value: Range<Int>

        /// Splits a logical line; nil when it has no colon.
        init?(_ line: [UInt8]) {
            var nameEnd = 0
            while nameEnd < line.count, line[nameEnd] != ASCII.colon, line[nameEnd] != ASCII.semicolon { nameEnd += 1 }
            guard nameEnd < line.count else { return nil }
            var nameStart = 0
            group = nil
            if let dot = line[..<nameEnd].lastIndex(of: ASCII.dot) {
                group = 0..<dot
                nameStart = dot + 1
            }
            property = Property(line[nameStart..<nameEnd])
            guard line[nameEnd] == ASCII.semicolon else {
                parameters = nameEnd..<nameEnd
                value = (nameEnd + 1)..<line.count
                return
            }
            var colon: Int?
            var inQuotes = false
            for index in (nameEnd + 1)..<line.count {
                let byte = line[index]
                if byte == ASCII.quote {
                    inQuotes.toggle()
                } else if byte == ASCII.colon, !inQuotes {
                    colon = index
                    break
                }
            }
            if colon == nil { colon = line[(nameEnd + 1)...].firstIndex(of: ASCII.colon) }
            guard let colon else { return nil }
            parameters = (nameEnd + 1)..<colon
            value = (colon + 1)..<line.count
        }
    }

    /// How a property value is encoded.
    private enum ValueEncoding {
        case plain, quotedPrintable, base64
    }

    /// The character set of a property value.
    private enum Charset {
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
    private struct Parameters {
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

    // MARK: - Labels

    /// Readable labels from `TYPE` parameters and Apple's `X-ABLabel`.
    private enum Labels {
        /// The label of a `TEL`: fax kinds first, then cell → "mobile", iphone, pager, main, home, work, other.
        static func phone(_ types: [String]) -> String? {
            guard !types.isEmpty else { return nil }
            let has = { (type: String) in types.contains(type) }
            if has("fax") {
                if has("home") { return "home fax" }
                if has("work") { return "work fax" }
                if has("other") { return "other fax" }
                return "fax"
            }
            for (type, label) in [("cell", "mobile"), ("mobile", "mobile"), ("iphone", "iphone"), ("pager", "pager"),
                                  ("main", "main"), ("home", "home"), ("work", "work"), ("other", "other")]
            where has(type) {
                return label
            }
            return nil
        }

        /// The label of an `EMAIL`, `ADR` or `URL`: home, work or other; `INTERNET`, `PREF` and the rest are ignored.
        static func general(_ types: [String]) -> String? {
            for type in ["home", "work", "other"] where types.contains(type) { return type }
            return nil
        }

        /// An `X-ABLabel` value: Apple's `_$!<Mobile>!$_` becomes `"mobile"`; a custom label is kept as written.
        static func apple(_ label: String) -> String? {
            guard label.hasPrefix("_$!<"), label.hasSuffix(">!$_"), label.count > 8 else {
                return label.isEmpty ? nil : label
            }
            let inner = String(label.dropFirst(4).dropLast(4))
            switch inner.lowercased() {
            case "homefax": return "home fax"
            case "workfax": return "work fax"
            case "otherfax": return "other fax"
            case "homepage": return "homepage"
            case "assistantphone": return "assistant"
            default: return inner.lowercased()
            }
        }
    }

    // MARK: - Reader

    /// Where a grouped value was stored, so that its group's `X-ABLabel` can relabel it.
    private enum LabeledField {
        case phone(Int), email(Int), address(Int), url(Int)
    }

    /// The card being read.
    private struct CardInProgress {
        var record: ContactRecord
        var version21 = false
        var hasName = false
        var formattedName: String?
        var groupLabels: [String: String] = [:]
        var groupedFields: [(group: String, field: LabeledField)] = []

        init(line: Int) { record = ContactRecord(line: line) }

        /// Applies Apple labels and the FN fallback, and returns the finished record.
        mutating func finish() -> ContactRecord {
            for (group, field) in groupedFields {
                guard let label = groupLabels[group] else { continue }
                switch field {
                case .phone(let index): record.phoneNumbers[index].label = label
                case .email(let index): record.emailAddresses[index].label = label
                case .address(let index): record.postalAddresses[index].label = label
                case .url(let index): record.urlAddresses[index].label = label
                }
            }
            if !hasName, let formattedName { fillName(from: formattedName) }
            return record
        }

        /// Fills the name from `FN` when `N` is missing or empty; a company's `FN` names the organization.
        private mutating func fillName(from formattedName: String) {
            if record.contactType == "organization"
                || formattedName.caseInsensitiveCompare(record.organizationName ?? "") == .orderedSame {
                if record.organizationName == nil { record.organizationName = formattedName }
                return
            }
            if let comma = formattedName.firstIndex(of: ",") {
                let family = formattedName[..<comma].trimmingCharacters(in: .whitespaces)
                let given = formattedName[formattedName.index(after: comma)...].trimmingCharacters(in: .whitespaces)
                record.familyName = family.isEmpty ? nil : family
                record.givenName = given.isEmpty ? nil : given
                return
            }
            let words = formattedName.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let last = words.last else { return }
            if words.count == 1 {
                record.givenName = String(last)
            } else {
                record.givenName = words.dropLast().joined(separator: " ")
                record.familyName = String(last)
            }
        }
    }

    /// Reads the cards of one file.
    private struct VCardReader {
        let file: String
        var lines: LogicalLines
        /// The physical line where the current logical line starts.
        var lineNumber = 0

        init(bytes: [UInt8], file: String) {
            self.file = file
            lines = LogicalLines(bytes: bytes)
        }

        func error(_ reason: String, line: Int? = nil) -> ImportError {
            ImportError(file: file, line: line ?? lineNumber, reason: reason)
        }

        mutating func readCards() throws(ImportError) -> [ContactRecord] {
            var cards: [ContactRecord] = []
            var card = CardInProgress(line: 0)
            var inCard = false
            while let number = lines.advance() {
                lineNumber = number
                let buffer = lines.buffer
                guard let line = ContentLine(buffer) else {
                    if !inCard { throw outsideError(buffer) }
                    throw error("line has no ':' (expected NAME:value); "
                        + "if it continues the line above, indent it with a space")
                }
                let isVCard = ASCII.equalsIgnoringCase(ASCII.trimmed(buffer[line.value]), "VCARD")
                switch line.property {
                case .begin where isVCard:
                    if inCard {
                        throw error("BEGIN:VCARD inside the card starting at line \(card.record.line); "
                            + "add the missing END:VCARD before it (nested vCards are not supported)")
                    }
                    card = CardInProgress(line: number)
                    inCard = true
                case .end where isVCard:
                    guard inCard else {
                        throw error("END:VCARD without a matching BEGIN:VCARD; "
                            + "remove it or add BEGIN:VCARD before the card")
                    }
                    cards.append(card.finish())
                    inCard = false
                default:
                    guard inCard else { throw outsideError(buffer) }
                    try read(line, in: buffer, into: &card)
                }
            }
            if inCard {
                throw error("card starting at line \(card.record.line) has no END:VCARD; the file may be truncated",
                            line: card.record.line)
            }
            guard !cards.isEmpty else {
                throw ImportError(file: file, line: nil, reason: "no vCard found; expected BEGIN:VCARD")
            }
            return cards
        }

        func outsideError(_ buffer: [UInt8]) -> ImportError {
            let preview = String(decoding: buffer.prefix(40), as: UTF8.self)
            return error("'\(preview)' is outside a card; every line must be between BEGIN:VCARD and END:VCARD "
                + "(is this a vCard file?)")
        }

        /// Reads one property into the open card.
        func read(_ line: ContentLine, in buffer: [UInt8], into card: inout CardInProgress) throws(ImportError) {
            let raw = buffer[line.value]
            switch line.property {
            case .version:
                let version = String(decoding: ASCII.trimmed(raw), as: UTF8.self)
                guard ["2.1", "3.0", "4.0"].contains(version) else {
                    throw error("unsupported vCard VERSION '\(version)'; expected 2.1, 3.0 or 4.0")
                }
                card.version21 = version == "2.1"
                return
            case .other, .begin, .end:
                return
            default:
                break
            }
            let parameters = line.parameters.isEmpty ? Parameters() : Parameters(buffer[line.parameters])
            if let unsupported = parameters.unsupportedCharset {
                throw error("unsupported CHARSET=\(unsupported); re-export the contacts as UTF-8 "
                    + "(supported: UTF-8, ISO-8859-1, windows-1252)")
            }
            let decoder = ValueDecoder(
                charset: parameters.charset, version21: card.version21, explicitCharset: parameters.charset != nil)
            let value: ArraySlice<UInt8>
            switch parameters.encoding {
            case .plain: value = raw
            case .quotedPrintable:
                guard let decoded = Self.quotedPrintableDecoded(raw) else {
                    throw error("invalid quoted-printable value: '=' must be followed by two hex digits "
                        + "or end the line; re-export the contact or fix the value")
                }
                value = decoded[...]
            case .base64:
                guard let decoded = Data(base64Encoded: Data(raw), options: .ignoreUnknownCharacters) else {
                    throw error("invalid base64 value; re-export the contact or remove the ENCODING parameter")
                }
                value = [UInt8](decoded)[...]
            }
            let group = line.group.map { String(decoding: buffer[$0], as: UTF8.self).lowercased() }
            try read(line.property, value: value, parameters: parameters, group: group, decoder: decoder, into: &card)
        }

        /// Stores one decoded property value in the card.
        func read(_ property: Property, value: ArraySlice<UInt8>, parameters: Parameters, group: String?,
                  decoder: ValueDecoder, into card: inout CardInProgress) throws(ImportError) {
            switch property {
            case .name:
                let parts = try components(value, separator: ASCII.semicolon, decoder: decoder)
                func part(_ index: Int) -> String? { index < parts.count ? parts[index] : nil }
                guard !card.hasName else { return }
                card.record.familyName = part(0)
                card.record.givenName = part(1)
                card.record.middleName = part(2)
                card.record.namePrefix = part(3)
                card.record.nameSuffix = part(4)
                card.hasName = parts.contains { $0 != nil }
            case .formattedName:
                if card.formattedName == nil { card.formattedName = try text(value, decoder) }
            case .nickname:
                let names = try components(value, separator: ASCII.comma, decoder: decoder).compactMap { $0 }
                if card.record.nickname == nil, !names.isEmpty { card.record.nickname = names.joined(separator: ", ") }
            case .organization:
                let parts = try components(value, separator: ASCII.semicolon, decoder: decoder)
                guard card.record.organizationName == nil, card.record.departmentName == nil else { return }
                card.record.organizationName = parts.first ?? nil
                let units = parts.dropFirst().compactMap { $0 }
                card.record.departmentName = units.isEmpty ? nil : units.joined(separator: ", ")
            case .title:
                if card.record.jobTitle == nil { card.record.jobTitle = try text(value, decoder) }
            case .phone:
                guard var number = try text(value, decoder) else { return }
                if number.lowercased().hasPrefix("tel:") { number = String(number.dropFirst(4)) }
                card.record.phoneNumbers.append(LabeledValue(label: Labels.phone(parameters.types), value: number))
                if let group { card.groupedFields.append((group, .phone(card.record.phoneNumbers.count - 1))) }
            case .email:
                guard var address = try text(value, decoder) else { return }
                if address.lowercased().hasPrefix("mailto:") { address = String(address.dropFirst(7)) }
                card.record.emailAddresses.append(LabeledValue(label: Labels.general(parameters.types), value: address))
                if let group { card.groupedFields.append((group, .email(card.record.emailAddresses.count - 1))) }
            case .address:
                let parts = try components(value, separator: ASCII.semicolon, decoder: decoder)
                func part(_ index: Int) -> String? { index < parts.count ? parts[index] : nil }
                let streetLines = [part(2), part(1), part(0)].compactMap { $0 }
                let address = PostalAddress(
                    label: Labels.general(parameters.types),
                    street: streetLines.isEmpty ? nil : streetLines.joined(separator: "\n"),
                    city: part(3), state: part(4), postalCode: part(5), country: part(6))
                guard address.street != nil || address.city != nil || address.state != nil
                    || address.postalCode != nil || address.country != nil else { return }
                card.record.postalAddresses.append(address)
                if let group { card.groupedFields.append((group, .address(card.record.postalAddresses.count - 1))) }
            case .url:
                guard let url = try text(value, decoder) else { return }
                card.record.urlAddresses.append(LabeledValue(label: Labels.general(parameters.types), value: url))
                if let group { card.groupedFields.append((group, .url(card.record.urlAddresses.count - 1))) }
            case .birthday:
                guard parameters.valueType != "text", card.record.birthday == nil,
                      let written = try text(value, decoder) else { return }
                guard let birthday = Birthday.normalized(written, omitYear: parameters.omitYear) else {
                    throw error("BDAY '\(written)' is not a date; expected YYYY-MM-DD, YYYYMMDD or --MM-DD "
                        + "(fix or remove the BDAY line)")
                }
                card.record.birthday = birthday
            case .note:
                guard let note = try text(value, decoder) else { return }
                card.record.note = card.record.note.map { $0 + "\n" + note } ?? note
            case .uid:
                guard var uid = try text(value, decoder), card.record.uid == nil else { return }
                if uid.lowercased().hasPrefix("urn:uuid:") { uid = String(uid.dropFirst(9)) }
                card.record.uid = uid
            case .categories:
                for name in try components(value, separator: ASCII.comma, decoder: decoder).compactMap({ $0 })
                where !card.record.groups.contains(name) {
                    card.record.groups.append(name)
                }
            case .kind:
                let kind = try text(value, decoder)?.lowercased()
                if kind == "org" || kind == "organization" { card.record.contactType = "organization" }
            case .appleShowAs:
                if try text(value, decoder)?.uppercased() == "COMPANY" { card.record.contactType = "organization" }
            case .appleLabel:
                guard let group, let written = try text(value, decoder),
                      let label = Labels.apple(written) else { return }
                card.groupLabels[group] = label
            case .begin, .end, .version, .other:
                return
            }
        }

        /// A whole value, unescaped, trimmed and decoded; nil when empty.
        func text(_ value: ArraySlice<UInt8>, _ decoder: ValueDecoder) throws(ImportError) -> String? {
            guard let text = decoder.decode(value) else { throw charsetError(decoder) }
            return text
        }

        /// A structured value split on an unescaped `separator`; each part unescaped, trimmed and decoded.
        func components(_ value: ArraySlice<UInt8>, separator: UInt8,
                        decoder: ValueDecoder) throws(ImportError) -> [String?] {
            var parts: [String?] = []
            var start = value.startIndex
            var index = value.startIndex
            while index < value.endIndex {
                let byte = value[index]
                if byte == ASCII.backslash {
                    index += 2
                    continue
                }
                if byte == separator {
                    guard let part = decoder.decode(value[start..<index]) else { throw charsetError(decoder) }
                    parts.append(part)
                    start = index + 1
                }
                index += 1
            }
            guard let last = decoder.decode(value[min(start, value.endIndex)..<value.endIndex]) else {
                throw charsetError(decoder)
            }
            parts.append(last)
            return parts
        }

        func charsetError(_ decoder: ValueDecoder) -> ImportError {
            if decoder.explicitCharset {
                return error("value is not valid in its CHARSET; re-export the contacts as UTF-8")
            }
            return error("value is not valid UTF-8; re-export the contacts as UTF-8 or add a CHARSET parameter")
        }

        /// Decodes quoted-printable bytes; nil when an `=` is not followed by two hex digits.
        static func quotedPrintableDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var index = bytes.startIndex
            while index < bytes.endIndex {
                let byte = bytes[index]
                guard byte == ASCII.equals else {
                    output.append(byte)
                    index += 1
                    continue
                }
                var rest = index + 1
                while rest < bytes.endIndex, ASCII.isBlank(bytes[rest]) { rest += 1 }
                if rest == bytes.endIndex { break }
                guard index + 2 < bytes.endIndex,
                      let high = ASCII.hexValue(bytes[index + 1]), let low = ASCII.hexValue(bytes[index + 2]) else {
                    return nil
                }
                output.append(high << 4 | low)
                index += 3
            }
            return output
        }
    }

    // MARK: - Values

    /// Turns the bytes of one value into text: unescapes, normalises line breaks, trims and decodes.
    private struct ValueDecoder {
        /// The value's charset; nil means UTF-8 (with a windows-1252 fallback in vCard 2.1).
        let charset: Charset?
        let version21: Bool
        let explicitCharset: Bool

        /// The decoded text; `.some(nil)` when empty, nil when the bytes are not valid in the charset.
        func decode(_ bytes: ArraySlice<UInt8>) -> String?? {
            let unescaped = ASCII.trimmed(Self.unescaped(bytes, version21: version21))
            if unescaped.isEmpty { return .some(nil) }
            if !unescaped.contains(where: { $0 >= 0x80 }) { return .some(String(decoding: unescaped, as: UTF8.self)) }
            switch charset {
            case .windows1252:
                return .some(Self.windows1252(unescaped))
            case .utf8:
                return String(validating: unescaped, as: UTF8.self).map { .some($0) }
            case nil:
                if let text = String(validating: unescaped, as: UTF8.self) { return .some(text) }
                return version21 ? .some(Self.windows1252(unescaped)) : nil
            }
        }

        /// Resolves backslash escapes (`\,` `\;` `\:` `\\`, and `\n` `\N` outside 2.1) and turns CRLF and CR into LF.
        static func unescaped(_ bytes: ArraySlice<UInt8>, version21: Bool) -> ArraySlice<UInt8> {
            guard bytes.contains(where: { $0 == ASCII.backslash || $0 == ASCII.cr }) else { return bytes }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var index = bytes.startIndex
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == ASCII.cr {
                    output.append(ASCII.lf)
                    index += 1
                    if index < bytes.endIndex, bytes[index] == ASCII.lf { index += 1 }
                    continue
                }
                guard byte == ASCII.backslash, index + 1 < bytes.endIndex else {
                    output.append(byte)
                    index += 1
                    continue
                }
                let next = bytes[index + 1]
                switch next {
                case ASCII.comma, ASCII.semicolon, ASCII.colon, ASCII.backslash:
                    output.append(next)
                case ASCII.lowerN, ASCII.upperN:
                    if version21 {
                        output.append(byte)
                        output.append(next)
                    } else {
                        output.append(ASCII.lf)
                    }
                default:
                    output.append(byte)
                    output.append(next)
                }
                index += 2
            }
            return output[...]
        }

        /// windows-1252 bytes as text (ISO-8859-1 is read the same way).
        static func windows1252(_ bytes: ArraySlice<UInt8>) -> String {
            var scalars = String.UnicodeScalarView()
            for byte in bytes {
                if byte >= 0x80, byte < 0xA0, let scalar = Unicode.Scalar(windows1252High[Int(byte - 0x80)]) {
                    scalars.append(scalar)
                } else {
                    scalars.append(Unicode.Scalar(byte))
                }
            }
            return String(scalars)
        }

        /// Code points of windows-1252 bytes 0x80–0x9F (undefined bytes map to the C1 control of the same value).
        static let windows1252High: [UInt32] = [
            0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
            0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
            0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
            0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
        ]
    }

    /// Normalises `BDAY` values.
    private enum Birthday {
        /// `YYYY-MM-DD` or `--MM-DD` from the forms exporters write, or nil when `written` is not a date.
        ///
        /// Accepts `1985-04-12`, `19850412`, `--0412`, `--04-12`, and any of these followed by a time
        /// (`1985-04-12T00:00:00Z`). A year equal to Apple's `X-APPLE-OMIT-YEAR` means "no year".
        static func normalized(_ written: String, omitYear: String?) -> String? {
            let bytes = Array(written.utf8)
            var index = 0
            var year: Int?
            if bytes.starts(with: [ASCII.dash, ASCII.dash]) {
                index = 2
            } else {
                guard let value = number(bytes, at: &index, digits: 4) else { return nil }
                year = value
            }
            let dashed = index < bytes.count && bytes[index] == ASCII.dash
            if dashed, year != nil { index += 1 }
            guard let month = number(bytes, at: &index, digits: 2) else { return nil }
            if dashed || (year == nil && index < bytes.count && bytes[index] == ASCII.dash) {
                guard index < bytes.count, bytes[index] == ASCII.dash else { return nil }
                index += 1
            }
            guard let day = number(bytes, at: &index, digits: 2) else { return nil }
            if index < bytes.count, bytes[index] != ASCII.upperT, bytes[index] != ASCII.space,
               bytes[index] != ASCII.lowerT {
                return nil
            }
            guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
            let monthDay = pad(month) + "-" + pad(day)
            guard let year, omitYear != String(year) else { return "--" + monthDay }
            return String(year + 10_000).dropFirst() + "-" + monthDay
        }

        private static func number(_ bytes: [UInt8], at index: inout Int, digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + digits)] {
                guard ASCII.isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }

        private static func daysIn(month: Int, year: Int?) -> Int {
            switch month {
            case 2:
                guard let year else { return 29 }
                return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: return 30
            default: return 31
            }
        }

        private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    }
}
