import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the points of a GPX 1.0 or 1.1 file: track points, route points and waypoints.
///
/// Each `<trkpt>`, `<rtept>` and `<wpt>` becomes one `LocationRecord`, in document order, with the
/// source `gpx:trkpt`, `gpx:rtept` or `gpx:wpt` and the line of the point's start tag. The `lat`
/// and `lon` attributes are required; the children `<ele>` (altitude, meters), `<time>` (ISO 8601)
/// and GPX 1.0's `<speed>` (m/s) and `<course>` (degrees) are read. A point without `<time>` keeps
/// a nil timestamp: nothing is invented. `<hdop>`/`<vdop>` are dilutions of precision, not
/// accuracies in meters, so they are ignored, as are `<extensions>` and elements of other
/// namespaces (Garmin, Strava, ...). Namespaces may be declared or omitted.
///
/// Line numbers are those `XMLParser` reports when it reads a start tag: for a tag spread over
/// several lines, that is the line where the tag ends.
///
/// Thread safety: stateless; each call uses its own `XMLParser`.
public enum GPXParser {
    /// Parses a GPX document.
    ///
    /// - Parameters:
    ///   - data: the file's bytes (UTF-8 or any encoding its XML declaration names).
    ///   - file: the file's name, used in error messages only.
    /// - Returns: the points in document order; never empty.
    /// - Throws: `ImportError` with the line when the XML is not well formed (including bytes that
    ///   are not UTF-8 in a document read as UTF-8; a `<!DOCTYPE>`; a `<?name?>` without data), the root element is
    ///   not `<gpx>`, a point's `lat`/`lon` is missing, not a number or out of range, a `<time>`,
    ///   `<ele>`, `<speed>` or `<course>` cannot be read, or the file has no points.
    public static func parse(_ data: Data, file: String) throws(ImportError) -> [LocationRecord] {
        let bytes = [UInt8](data)
        if let offset = invalidUTF8Offset(bytes) {
            let line = bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw ImportError(
                file: file, line: line,
                reason: "not well-formed XML: byte 0x\(String(bytes[offset], radix: 16, uppercase: true)) is not valid UTF-8;"
                    + " the file is read as UTF-8 (its XML declaration names no other encoding), so export it again"
                    + " as UTF-8 or declare its real encoding, e.g. <?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"
            )
        }
        if let (line, reason) = unreadableMarkup(bytes) {
            throw ImportError(file: file, line: line, reason: reason)
        }
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        let reader = GPXReader(file: file)
        parser.delegate = reader
        let finished = parser.parse()
        if let failure = reader.failure { throw failure }
        if !finished || reader.syntaxError != nil {
            let (code, line) = reader.syntaxError ?? ((parser.parserError as NSError?)?.code ?? 0, parser.lineNumber)
            // libxml2 reports line 0 when it fails before the first line, converting the encoding.
            throw ImportError(
                file: file, line: line > 0 ? line : nil,
                reason: "not well-formed XML: \(describeXMLError(code)); a GPX file must be valid XML,"
                    + " so check this line (and the one before) or export the file again"
            )
        }
        guard reader.sawRoot else {
            throw ImportError(file: file, line: nil, reason: "the file is empty: export the track again as GPX")
        }
        guard !reader.points.isEmpty else {
            throw ImportError(
                file: file, line: nil,
                reason: "no trkpt, rtept or wpt found: the GPX file holds no points to import"
                    + " (was the track exported with its points?)"
            )
        }
        return reader.points
    }

    /// Says in words what a libxml2 error code (as `XMLParser` reports it) means.
    private static func describeXMLError(_ code: Int) -> String {
        switch code {
        case 4: "the file is not XML (no start tag)"
        case 5: "the file ends too early or has text after the closing </gpx> (a truncated file?)"
        case 9: "a character that XML does not allow"
        case 23: "an entity reference is missing its ';' (write & as &amp;)"
        case 26, 27: "an undeclared entity (write & as &amp;)"
        case 38: "a '<' inside an attribute value (write it as &lt;)"
        case 39, 40, 41: "an attribute value without quotes"
        case 42: "an attribute given twice in one tag"
        case 68: "a '<' without a tag name (write it as &lt;)"
        case 73: "a tag is missing its '>'"
        case 76: "an end tag does not match the open start tag"
        case 77: "a tag is not closed"
        case 6003: "the bytes are not in the encoding that the file's first bytes or XML declaration name"
        default: "XML error \(code)"
        }
    }
}

/// The `XMLParser` delegate behind `GPXParser`: a small state machine over start tags, text and
/// end tags. It records the first failure and aborts the parse.
///
/// Thread safety: not thread-safe; used by one `parse` call on one thread.
final class GPXReader: NSObject, XMLParserDelegate {
    /// A point whose start tag has been read and whose end tag has not.
    private struct OpenPoint {
        var record: LocationRecord
        var name: String
        var depth: Int
    }

    /// A direct child of an open point whose text is being collected.
    private struct OpenField {
        var name: String
        var line: Int
        var text = ""
    }

    private static let pointSources = ["trkpt": "gpx:trkpt", "rtept": "gpx:rtept", "wpt": "gpx:wpt"]
    private static let fieldNames: Set<String> = ["ele", "time", "speed", "course"]

    let file: String
    private(set) var points: [LocationRecord] = []
    private(set) var failure: ImportError?
    /// The libxml2 code and line of the first XML syntax error.
    private(set) var syntaxError: (code: Int, line: Int)?
    private(set) var sawRoot = false

    private var depth = 0
    private var rootNamespace: String?
    /// Depth of the `<extensions>` or foreign-namespace element being skipped, if any.
    private var skipDepth: Int?
    private var point: OpenPoint?
    private var field: OpenField?

    init(file: String) {
        self.file = file
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        depth += 1
        guard failure == nil, skipDepth == nil else { return }
        let line = parser.lineNumber
        if depth == 1 {
            sawRoot = true
            guard elementName == "gpx" else {
                return fail(parser, line: line, "the root element is <\(qName ?? elementName)>, not <gpx>: this is not a GPX file")
            }
            rootNamespace = namespaceURI
            return
        }
        guard isGPX(namespaceURI), elementName != "extensions" else {
            skipDepth = depth
            return
        }
        if let source = Self.pointSources[elementName] {
            if let open = point {
                return fail(parser, line: line, "<\(elementName)> starts inside <\(open.name)>, which is not closed: close each point before the next")
            }
            guard let latitude = coordinate("lat", of: elementName, in: attributeDict, parser: parser, line: line),
                  let longitude = coordinate("lon", of: elementName, in: attributeDict, parser: parser, line: line)
            else { return }
            if let problem = LocationFields.coordinateProblem(latitude: latitude, longitude: longitude) {
                return fail(parser, line: line, "<\(elementName)>: \(problem)")
            }
            let record = LocationRecord(timestamp: nil, latitude: latitude, longitude: longitude, source: source, line: line)
            point = OpenPoint(record: record, name: elementName, depth: depth)
        } else if let open = point, depth == open.depth + 1, Self.fieldNames.contains(elementName) {
            field = OpenField(name: elementName, line: line)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        field?.text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        field?.text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        defer { depth -= 1 }
        guard failure == nil else { return }
        if let skip = skipDepth {
            if skip == depth { skipDepth = nil }
            return
        }
        if let open = field, let current = point, depth == current.depth + 1 {
            field = nil
            store(open, parser: parser)
        } else if let open = point, depth == open.depth {
            points.append(open.record)
            point = nil
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if syntaxError == nil { syntaxError = ((parseError as NSError).code, parser.lineNumber) }
    }

    /// Whether an element belongs to GPX rather than to an extension's namespace.
    private func isGPX(_ namespaceURI: String?) -> Bool {
        guard let namespaceURI, !namespaceURI.isEmpty else { return true }
        return namespaceURI == rootNamespace || namespaceURI.hasPrefix("http://www.topografix.com/GPX/")
    }

    /// Reads the `lat` or `lon` attribute of a point, failing the parse when it is absent or not a number.
    private func coordinate(
        _ name: String, of element: String, in attributes: [String: String], parser: XMLParser, line: Int
    ) -> Double? {
        guard let text = attributes[name] else {
            fail(parser, line: line, "<\(element)> has no \(name) attribute: every point needs lat and lon in decimal degrees")
            return nil
        }
        guard let value = LocationFields.number(text) else {
            fail(parser, line: line, "<\(element)> has \(name)=\"\(text)\", which is not a number: write decimal degrees such as \(name)=\"52.5200\"")
            return nil
        }
        return value
    }

    /// Stores the text of a finished child element into the open point.
    private func store(_ field: OpenField, parser: XMLParser) {
        let text = LocationFields.trimmingSpaces(field.text)
        if text.isEmpty { return }
        if field.name == "time" {
            guard let seconds = LocationFields.timestamp(text) else {
                return fail(parser, line: field.line, "<time>\(text)</time> is not an ISO 8601 date-time: write it as 2024-05-01T12:34:56Z")
            }
            point?.record.timestamp = seconds
            return
        }
        guard let value = LocationFields.number(text) else {
            return fail(parser, line: field.line, "<\(field.name)>\(text)</\(field.name)> is not a number: write a decimal number such as 12.5")
        }
        switch field.name {
        case "ele": point?.record.altitude = value
        case "speed": point?.record.speed = value
        default: point?.record.course = value
        }
    }

    /// Records the first failure and stops the parser.
    private func fail(_ parser: XMLParser, line: Int, _ reason: String) {
        guard failure == nil else { return }
        failure = ImportError(file: file, line: line, reason: reason)
        parser.abortParsing()
    }
}
