import Foundation

/// Reads the points of a GeoJSON document (RFC 7946).
///
/// The document may be a `FeatureCollection`, a single `Feature` or a bare geometry. The geometry
/// types `Point`, `MultiPoint`, `LineString`, `MultiLineString` and `GeometryCollection` give one
/// `LocationRecord` per position, in file order, with the source `geojson` and the line of the
/// position. A position is `[longitude, latitude]` or `[longitude, latitude, altitude]`.
///
/// Timestamps come, per position, from `properties.coordTimes` or `properties.times` (one entry
/// per position, or one array per line of a `MultiLineString`, as gpx-to-GeoJSON converters write
/// them), or else, per feature, from `properties.time`, `timestamp` or `datetime`. A timestamp is
/// ISO 8601 text or a number of seconds since 1970 (milliseconds when above 1e11). A position
/// with neither keeps a nil timestamp. The optional feature properties `accuracy` (or
/// `horizontalAccuracy`), `verticalAccuracy`, `speed`, `course` (or `heading`), `altitude` (when
/// the position has none) and `floor` fill the record's other fields.
///
/// Thread safety: stateless; safe to call from any thread.
public enum GeoJSONParser {
    /// Parses a GeoJSON document.
    ///
    /// - Parameters:
    ///   - data: the file's UTF-8 bytes.
    ///   - file: the file's name, used in error messages only.
    /// - Returns: the points in file order; never empty.
    /// - Throws: `ImportError` with the line where the offending value starts when the JSON is
    ///   invalid (the line of the syntax error), a position has fewer than two numbers or is out
    ///   of range, a `coordTimes` array does not match the positions, a timestamp or property
    ///   cannot be read, a geometry type is not supported, or the document has no points.
    public static func parse(_ data: Data, file: String) throws(ImportError) -> [LocationRecord] {
        let root = try LineNumberedJSON.parse(data, file: file)
        var reader = GeoJSONReader(file: file)
        try reader.readRoot(root)
        guard !reader.points.isEmpty else {
            throw ImportError(
                file: file, line: nil,
                reason: "no points found: the GeoJSON has no Point, MultiPoint, LineString or MultiLineString coordinates to import"
            )
        }
        return reader.points
    }
}

/// Walks a parsed GeoJSON tree and collects its positions as `LocationRecord`s.
///
/// Thread safety: a value used by one `parse` call.
struct GeoJSONReader {
    /// One `[longitude, latitude, altitude?]` position and the line it starts on.
    private struct Position {
        var longitude: Double
        var latitude: Double
        var altitude: Double?
        var line: Int
    }

    /// What a feature's `properties` say about all of its positions.
    private struct FeatureFields {
        var timestamp: Double?
        var horizontalAccuracy: Double?
        var verticalAccuracy: Double?
        var speed: Double?
        var course: Double?
        var altitude: Double?
        var floor: Int?
        var pointTimes: LineNumberedJSON?
    }

    private static let geometryTypes = ["Point", "MultiPoint", "LineString", "MultiLineString", "GeometryCollection"]

    let file: String
    private(set) var points: [LocationRecord] = []

    init(file: String) {
        self.file = file
    }

    /// Reads the document's top-level object, whatever its `type`.
    mutating func readRoot(_ root: LineNumberedJSON) throws(ImportError) {
        let type = try typeName(of: root, what: "the GeoJSON document")
        switch type {
        case "FeatureCollection":
            guard let features = root["features"]?.array else {
                throw error(root, "the FeatureCollection has no \"features\" array: add one, even if empty")
            }
            for feature in features { try readFeature(feature) }
        case "Feature":
            try readFeature(root)
        default:
            try readGeometry(root, fields: FeatureFields())
        }
    }

    private mutating func readFeature(_ feature: LineNumberedJSON) throws(ImportError) {
        let type = try typeName(of: feature, what: "a feature")
        guard type == "Feature" else {
            throw error(feature, "a member of \"features\" has type \"\(type)\": each must be a \"Feature\" with a geometry")
        }
        guard let geometry = feature["geometry"] else {
            throw error(feature, "the Feature has no \"geometry\" member: give it a geometry, or null when it has no location")
        }
        if geometry.isNull { return }
        let fields = try readProperties(feature["properties"])
        try readGeometry(geometry, fields: fields)
    }

    private mutating func readGeometry(_ geometry: LineNumberedJSON, fields: FeatureFields) throws(ImportError) {
        let parts = try positionParts(of: geometry)
        let times = try pointTimes(fields.pointTimes, parts: parts)
        for (partIndex, part) in parts.enumerated() {
            for (positionIndex, position) in part.enumerated() {
                var record = LocationRecord(
                    timestamp: times?[partIndex][positionIndex] ?? fields.timestamp,
                    latitude: position.latitude, longitude: position.longitude, source: "geojson", line: position.line
                )
                record.altitude = position.altitude ?? fields.altitude
                record.horizontalAccuracy = fields.horizontalAccuracy
                record.verticalAccuracy = fields.verticalAccuracy
                record.speed = fields.speed
                record.course = fields.course
                record.floor = fields.floor
                points.append(record)
            }
        }
    }

    /// The positions of a geometry, one array per line (a `MultiLineString` has several; a point,
    /// `MultiPoint` and `LineString` one; a `GeometryCollection` those of its members).
    private func positionParts(of geometry: LineNumberedJSON) throws(ImportError) -> [[Position]] {
        let type = try typeName(of: geometry, what: "a geometry")
        if type == "GeometryCollection" {
            guard let members = geometry["geometries"]?.array else {
                throw error(geometry, "the GeometryCollection has no \"geometries\" array")
            }
            var parts: [[Position]] = []
            for member in members { parts += try positionParts(of: member) }
            return parts
        }
        guard Self.geometryTypes.contains(type) else {
            let hint = type == "Polygon" || type == "MultiPolygon"
                ? "areas are not locations"
                : "it is not a GeoJSON geometry type"
            throw error(
                geometry,
                "unsupported geometry type \"\(type)\" (\(hint)): location import reads Point, MultiPoint, LineString,"
                    + " MultiLineString and GeometryCollection"
            )
        }
        guard let coordinates = geometry["coordinates"] else {
            throw error(geometry, "the \(type) has no \"coordinates\" member")
        }
        switch type {
        case "Point":
            return [[try position(coordinates)]]
        case "MultiPoint", "LineString":
            return [try positions(coordinates, of: type)]
        default:
            guard let lines = coordinates.array else {
                throw error(coordinates, "the MultiLineString's \"coordinates\" is \(coordinates.kind): expected an array of lines")
            }
            var parts: [[Position]] = []
            for line in lines { parts.append(try positions(line, of: "line of the MultiLineString")) }
            return parts
        }
    }

    private func positions(_ node: LineNumberedJSON, of what: String) throws(ImportError) -> [Position] {
        guard let elements = node.array else {
            throw error(node, "the \(what)'s coordinates are \(node.kind): expected an array of [longitude, latitude] positions")
        }
        var result: [Position] = []
        result.reserveCapacity(elements.count)
        for element in elements { result.append(try position(element)) }
        return result
    }

    private func position(_ node: LineNumberedJSON) throws(ImportError) -> Position {
        guard let elements = node.array, elements.count >= 2 else {
            throw error(node, "a position must be an array of at least two numbers, [longitude, latitude], found \(node.kind)"
                + (node.array.map { " of \($0.count)" } ?? ""))
        }
        guard let longitude = elements[0].number, let latitude = elements[1].number else {
            throw error(node, "a position's longitude and latitude must be numbers (found \(elements[0].kind) and \(elements[1].kind))")
        }
        if let problem = LocationFields.coordinateProblem(latitude: latitude, longitude: longitude) {
            throw error(node, "\(problem); GeoJSON positions are [longitude, latitude]")
        }
        var altitude: Double?
        if elements.count >= 3 {
            guard let value = elements[2].number else {
                throw error(node, "a position's third element (altitude) must be a number, found \(elements[2].kind)")
            }
            altitude = value
        }
        return Position(longitude: longitude, latitude: latitude, altitude: altitude, line: node.line)
    }

    /// Reads the per-position timestamps of `coordTimes`/`times`, shaped like the positions.
    private func pointTimes(_ node: LineNumberedJSON?, parts: [[Position]]) throws(ImportError) -> [[Double?]]? {
        guard let node, !node.isNull else { return nil }
        guard let entries = node.array else {
            throw error(node, "\"coordTimes\" is \(node.kind): expected an array with one timestamp per position")
        }
        let total = parts.reduce(0) { $0 + $1.count }
        if !entries.isEmpty, entries.allSatisfy({ $0.array != nil }) {
            guard entries.count == parts.count else {
                throw error(node, "\"coordTimes\" has \(entries.count) arrays for \(parts.count) lines: give one array per line")
            }
            var result: [[Double?]] = []
            for (entry, part) in zip(entries, parts) {
                let inner = entry.array ?? []
                guard inner.count == part.count else {
                    throw error(entry, "\"coordTimes\" has \(inner.count) timestamps for a line of \(part.count) positions: give one per position")
                }
                var times: [Double?] = []
                for time in inner { times.append(try timestamp(time, what: "a coordTimes entry")) }
                result.append(times)
            }
            return result
        }
        guard entries.count == total else {
            throw error(node, "\"coordTimes\" has \(entries.count) timestamps for \(total) positions: give one per position")
        }
        var flat: [Double?] = []
        flat.reserveCapacity(total)
        for entry in entries { flat.append(try timestamp(entry, what: "a coordTimes entry")) }
        var result: [[Double?]] = []
        var offset = 0
        for part in parts {
            result.append(Array(flat[offset..<(offset + part.count)]))
            offset += part.count
        }
        return result
    }

    private func readProperties(_ node: LineNumberedJSON?) throws(ImportError) -> FeatureFields {
        var fields = FeatureFields()
        guard let node, !node.isNull else { return fields }
        guard case .object = node.value else {
            throw error(node, "the Feature's \"properties\" is \(node.kind): expected an object or null")
        }
        for key in ["time", "timestamp", "datetime"] {
            if let value = node[key], !value.isNull {
                fields.timestamp = try timestamp(value, what: "properties.\(key)")
                break
            }
        }
        fields.horizontalAccuracy = try number(in: node, keys: ["accuracy", "horizontalAccuracy"])
        fields.verticalAccuracy = try number(in: node, keys: ["verticalAccuracy"])
        fields.speed = try number(in: node, keys: ["speed"])
        fields.course = try number(in: node, keys: ["course", "heading"])
        fields.altitude = try number(in: node, keys: ["altitude"])
        if let floor = try number(in: node, keys: ["floor"]) {
            guard let whole = Int(exactly: floor) else {
                throw error(node, "properties.floor is \(floor): a floor is a whole number")
            }
            fields.floor = whole
        }
        fields.pointTimes = node["coordTimes"] ?? node["times"]
        return fields
    }

    /// The first of `keys` present in `properties` as a number (or numeric text), or nil.
    private func number(in properties: LineNumberedJSON, keys: [String]) throws(ImportError) -> Double? {
        for key in keys {
            guard let value = properties[key], !value.isNull else { continue }
            if let number = value.number { return number }
            if let text = value.string, let number = LocationFields.number(text) { return number }
            throw error(value, "properties.\(key) is \(value.kind): expected a number")
        }
        return nil
    }

    private func timestamp(_ node: LineNumberedJSON, what: String) throws(ImportError) -> Double? {
        switch node.value {
        case .null:
            return nil
        case .number(let number):
            return LocationFields.epochSeconds(number)
        case .string(let text):
            guard let seconds = LocationFields.timestamp(text) else {
                throw error(node, "\(what) \"\(text)\" is not a timestamp: write ISO 8601 (2024-05-01T12:34:56Z) or seconds since 1970")
            }
            return seconds
        default:
            throw error(node, "\(what) is \(node.kind): expected ISO 8601 text or a number of seconds since 1970")
        }
    }

    private func typeName(of node: LineNumberedJSON, what: String) throws(ImportError) -> String {
        guard case .object = node.value else {
            throw error(node, "\(what) is \(node.kind): expected a GeoJSON object with a \"type\"")
        }
        guard let type = node["type"]?.string else {
            throw error(node, "\(what) has no \"type\" string: GeoJSON objects name their type, such as \"FeatureCollection\" or \"Point\"")
        }
        return type
    }

    private func error(_ node: LineNumberedJSON, _ reason: String) -> ImportError {
        ImportError(file: file, line: node.line, reason: reason)
    }
}
