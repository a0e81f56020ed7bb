import Foundation

/// Reads location fixes from a CSV file (RFC 4180) with a header row.
///
/// Column names are matched ignoring case, spaces, `_` and `-`, with aliases:
/// - required: `timestamp` (`time`, `date`, `datetime`), `latitude` (`lat`), `longitude` (`lon`,
///   `lng`, `long`);
/// - optional: `accuracy` (`horizontalAccuracy`), `verticalAccuracy`, `altitude` (`ele`,
///   `elevation`), `speed` (`velocity`), `course` (`heading`, `bearing`), `floor`.
///
/// Other columns are ignored. Timestamps are ISO 8601 or seconds since 1970 (milliseconds when
/// above 1e11); empty optional cells are nil. Fields may be quoted (with `""` for a quote and
/// line breaks inside); lines end in LF or CRLF; a UTF-8 byte order mark is skipped; blank lines
/// are skipped. When the header has no comma but a `;` (or a tab), that is the delimiter, and
/// numbers may then use a decimal comma (`52,52`). Each record has the source `csv` and the line
/// where its row starts.
///
/// Thread safety: stateless; safe to call from any thread.
public enum LocationCSVParser {
    /// Parses a location CSV file.
    ///
    /// - Parameters:
    ///   - data: the file's UTF-8 bytes.
    ///   - file: the file's name, used in error messages only.
    /// - Returns: one record per row, in file order; never empty.
    /// - Throws: `ImportError` with the line (and column name) when a required column is missing,
    ///   two columns name the same field, a row has a different number of fields than the header,
    ///   a cell is not a number or timestamp, a coordinate is out of range, a quoted field is not
    ///   closed, or the file has no rows.
    public static func parse(_ data: Data, file: String) throws(ImportError) -> [LocationRecord] {
        var tokenizer = CSVTokenizer(bytes: [UInt8](data), file: file)
        var fields: [CSVTokenizer.Field] = []
        guard let headerLine = try tokenizer.nextRecord(into: &fields) else {
            throw ImportError(
                file: file, line: nil,
                reason: "the file is empty: a location CSV needs a header row such as timestamp,latitude,longitude and one row per point"
            )
        }
        let columns = try LocationCSVColumns(header: fields.map { tokenizer.text($0) }, file: file, line: headerLine)
        var records: [LocationRecord] = []
        records.reserveCapacity(data.count / 48)
        while let line = try tokenizer.nextRecord(into: &fields) {
            guard fields.count == columns.names.count else {
                throw ImportError(
                    file: file, line: line,
                    reason: "this row has \(fields.count) fields but the header has \(columns.names.count):"
                        + " quote fields that contain '\(Character(Unicode.Scalar(tokenizer.delimiter)))' and give every row the same columns"
                )
            }
            records.append(try columns.record(from: fields, tokenizer: tokenizer, line: line))
        }
        guard !records.isEmpty else {
            throw ImportError(file: file, line: headerLine, reason: "the CSV has a header but no rows: there are no points to import")
        }
        return records
    }
}

/// Which column holds which field of a `LocationRecord`, read from the header row.
///
/// Thread safety: an immutable value.
struct LocationCSVColumns {
    /// The fields a column can fill.
    enum Field: CaseIterable {
        case timestamp, latitude, longitude, horizontalAccuracy, verticalAccuracy, altitude, speed, course, floor

        /// Accepted header names, lowercased without spaces, `_` or `-`.
        var aliases: [String] {
            switch self {
            case .timestamp: ["timestamp", "time", "date", "datetime"]
            case .latitude: ["latitude", "lat"]
            case .longitude: ["longitude", "lon", "lng", "long"]
            case .horizontalAccuracy: ["accuracy", "horizontalaccuracy"]
            case .verticalAccuracy: ["verticalaccuracy"]
            case .altitude: ["altitude", "ele", "elevation"]
            case .speed: ["speed", "velocity"]
            case .course: ["course", "heading", "bearing"]
            case .floor: ["floor"]
            }
        }

        var isRequired: Bool { self == .timestamp || self == .latitude || self == .longitude }
    }

    /// The header's names as written.
    let names: [String]
    let file: String
    private let timestamp: Int
    private let latitude: Int
    private let longitude: Int
    private let optional: [(field: Field, column: Int)]

    /// Matches the header's names to fields.
    ///
    /// - Throws: `ImportError` when a required column is missing or two columns name one field.
    init(header: [String], file: String, line: Int) throws(ImportError) {
        names = header
        self.file = file
        var found: [Field: Int] = [:]
        for (column, name) in header.enumerated() {
            let key = String(name.lowercased().unicodeScalars.filter { $0 != " " && $0 != "_" && $0 != "-" })
            guard let field = Field.allCases.first(where: { $0.aliases.contains(key) }) else { continue }
            if let earlier = found[field] {
                throw ImportError(
                    file: file, line: line,
                    reason: "the columns \"\(header[earlier])\" and \"\(name)\" both name the \(field) field:"
                        + " keep one (merge a separate date and time into one ISO 8601 column)"
                )
            }
            found[field] = column
        }
        let missing = Field.allCases.filter { $0.isRequired && found[$0] == nil }
        guard missing.isEmpty, let timestamp = found[.timestamp], let latitude = found[.latitude],
              let longitude = found[.longitude]
        else {
            let listed = header.map { "\"\($0)\"" }.joined(separator: ", ")
            throw ImportError(
                file: file, line: line,
                reason: "missing the \(missing.map { "\($0)" }.joined(separator: " and ")) column\(missing.count > 1 ? "s" : "")"
                    + " (found columns: \(listed)): the header row must name timestamp (or time, date, datetime),"
                    + " latitude (or lat) and longitude (or lon, lng, long)"
            )
        }
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        optional = Field.allCases.compactMap { field in
            guard !field.isRequired, let column = found[field] else { return nil }
            return (field, column)
        }
    }

    /// Builds the record of one row whose field count matches the header.
    func record(from fields: [CSVTokenizer.Field], tokenizer: CSVTokenizer, line: Int) throws(ImportError) -> LocationRecord {
        let time = try text(fields, timestamp, tokenizer, line: line, required: true)
        guard let seconds = LocationFields.timestamp(time) else {
            throw error(line, timestamp, "\"\(time)\" is not a timestamp: write ISO 8601 (2024-05-01T12:34:56Z) or seconds since 1970")
        }
        let lat = try number(fields, latitude, tokenizer, line: line, required: true) ?? .nan
        let lon = try number(fields, longitude, tokenizer, line: line, required: true) ?? .nan
        if let problem = LocationFields.coordinateProblem(latitude: lat, longitude: lon) {
            throw ImportError(file: file, line: line, reason: problem)
        }
        var record = LocationRecord(timestamp: seconds, latitude: lat, longitude: lon, source: "csv", line: line)
        for (field, column) in optional {
            guard let value = try number(fields, column, tokenizer, line: line, required: false) else { continue }
            switch field {
            case .horizontalAccuracy: record.horizontalAccuracy = value
            case .verticalAccuracy: record.verticalAccuracy = value
            case .altitude: record.altitude = value
            case .speed: record.speed = value
            case .course: record.course = value
            case .floor:
                guard let floor = Int(exactly: value) else {
                    throw error(line, column, "\(value) is not a whole number: a floor is an integer such as 2 or -1")
                }
                record.floor = floor
            case .timestamp, .latitude, .longitude:
                continue
            }
        }
        return record
    }

    /// The trimmed text of a cell; an empty required cell is an error.
    private func text(
        _ fields: [CSVTokenizer.Field], _ column: Int, _ tokenizer: CSVTokenizer, line: Int, required: Bool
    ) throws(ImportError) -> Substring {
        let text = LocationFields.trimmingSpaces(tokenizer.text(fields[column]))
        if required && text.isEmpty {
            throw error(line, column, "the cell is empty: every row needs a timestamp, a latitude and a longitude")
        }
        return text
    }

    /// The number in a cell, nil when an optional cell is empty (a required one throws instead).
    private func number(
        _ fields: [CSVTokenizer.Field], _ column: Int, _ tokenizer: CSVTokenizer, line: Int, required: Bool
    ) throws(ImportError) -> Double? {
        var cell = try text(fields, column, tokenizer, line: line, required: required)
        if cell.isEmpty { return nil }
        if tokenizer.delimiter != UInt8(ascii: ","), cell.contains(","), !cell.contains(".") {
            cell = Substring(cell.replacingOccurrences(of: ",", with: "."))
        }
        guard let value = LocationFields.number(cell) else {
            throw error(line, column, "\"\(cell)\" is not a number: write a decimal number such as 52.5200")
        }
        return value
    }

    private func error(_ line: Int, _ column: Int, _ reason: String) -> ImportError {
        ImportError(file: file, line: line, reason: "column \"\(names[column])\": \(reason)")
    }
}

/// Splits CSV bytes into records of fields (RFC 4180), counting lines.
///
/// Fields are byte ranges into the file; only quoted fields with doubled quotes are copied.
///
/// Thread safety: a value used by one `parse` call.
struct CSVTokenizer {
    /// One field: a byte range of the file, or the unescaped bytes of a quoted field with `""`.
    struct Field {
        var start: Int
        var end: Int
        var unescaped: [UInt8]?
    }

    private static let quote = UInt8(ascii: "\"")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    let bytes: [UInt8]
    let file: String
    /// `,`, or `;` or tab when the header row has no comma.
    let delimiter: UInt8
    private var index = 0
    private var line = 1

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        delimiter = Self.detectDelimiter(bytes[index...])
    }

    /// The delimiter of the first non-blank line: a comma if it has one, else `;`, else a tab.
    private static func detectDelimiter(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var sawSemicolon = false, sawTab = false, sawText = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: ","): return byte
            case UInt8(ascii: ";"): sawSemicolon = true
            case UInt8(ascii: "\t"): sawTab = true
            case lineFeed, carriageReturn: if sawText { return sawSemicolon ? UInt8(ascii: ";") : sawTab ? UInt8(ascii: "\t") : UInt8(ascii: ",") }
            default: sawText = true
            }
        }
        return sawSemicolon ? UInt8(ascii: ";") : sawTab ? UInt8(ascii: "\t") : UInt8(ascii: ",")
    }

    /// The text of a field.
    func text(_ field: Field) -> String {
        if let unescaped = field.unescaped { return String(decoding: unescaped, as: UTF8.self) }
        return String(decoding: bytes[field.start..<field.end], as: UTF8.self)
    }

    /// Reads the next non-blank record into `fields`.
    ///
    /// - Returns: the line where the record starts, or nil at the end of the file.
    /// - Throws: `ImportError` when a quoted field is not closed, or a closing quote is followed
    ///   by something other than a delimiter or a line break.
    mutating func nextRecord(into fields: inout [Field]) throws(ImportError) -> Int? {
        fields.removeAll(keepingCapacity: true)
        while index < bytes.count {
            if bytes[index] == Self.lineFeed {
                line += 1
                index += 1
            } else if bytes[index] == Self.carriageReturn {
                index += 1
                if index < bytes.count, bytes[index] == Self.lineFeed { index += 1 }
                line += 1
            } else if let end = blankLineEnd() {
                index = end
            } else {
                break
            }
        }
        guard index < bytes.count else { return nil }
        let recordLine = line
        while true {
            fields.append(try nextField())
            guard index < bytes.count else { return recordLine }
            let byte = bytes[index]
            index += 1
            if byte == delimiter { continue }
            if byte == Self.carriageReturn, index < bytes.count, bytes[index] == Self.lineFeed { index += 1 }
            line += 1
            return recordLine
        }
    }

    /// Where the line at `index` ends when it holds only spaces and tabs, or nil.
    private func blankLineEnd() -> Int? {
        var end = index
        while end < bytes.count, bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t") { end += 1 }
        guard end == bytes.count || bytes[end] == Self.lineFeed || bytes[end] == Self.carriageReturn else { return nil }
        return end
    }

    /// Reads one field, leaving `index` on the delimiter, the line break or the end of the file.
    private mutating func nextField() throws(ImportError) -> Field {
        var start = index
        while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
        guard start < bytes.count, bytes[start] == Self.quote else {
            while index < bytes.count {
                let byte = bytes[index]
                if byte == delimiter || byte == Self.lineFeed || byte == Self.carriageReturn { break }
                index += 1
            }
            return Field(start: start, end: index, unescaped: nil)
        }
        let fieldLine = line
        index = start + 1
        let contentStart = index
        var hasDoubledQuote = false
        while true {
            guard index < bytes.count else {
                throw ImportError(
                    file: file, line: fieldLine,
                    reason: "a quoted field starting on this line is never closed: add the closing '\"' (write a quote inside a field as \"\")"
                )
            }
            let byte = bytes[index]
            if byte == Self.lineFeed {
                line += 1
            } else if byte == Self.carriageReturn {
                if index + 1 >= bytes.count || bytes[index + 1] != Self.lineFeed { line += 1 }
            } else if byte == Self.quote {
                if index + 1 < bytes.count, bytes[index + 1] == Self.quote {
                    hasDoubledQuote = true
                    index += 2
                    continue
                }
                break
            }
            index += 1
        }
        let contentEnd = index
        index += 1
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        if index < bytes.count, bytes[index] != delimiter, bytes[index] != Self.lineFeed, bytes[index] != Self.carriageReturn {
            throw ImportError(
                file: file, line: line,
                reason: "a quoted field is followed by '\(Character(Unicode.Scalar(bytes[index])))' instead of a delimiter:"
                    + " quote the whole field and write a quote inside it as \"\""
            )
        }
        guard hasDoubledQuote else { return Field(start: contentStart, end: contentEnd, unescaped: nil) }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(contentEnd - contentStart)
        var position = contentStart
        while position < contentEnd {
            unescaped.append(bytes[position])
            position += bytes[position] == Self.quote ? 2 : 1
        }
        return Field(start: contentStart, end: contentEnd, unescaped: unescaped)
    }
}
