import Foundation
import Testing
@testable import EscrowStore

/// The bytes of a file in `Fixtures/locations/`.
private func locationFixture(_ name: String) throws -> Data {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/locations/\(name)")
    return try Data(contentsOf: url)
}

/// Parses a fixture with one of the three parsers.
private func parseFixture(_ name: String) throws -> [LocationRecord] {
    let data = try locationFixture(name)
    if name.hasSuffix(".gpx") { return try GPXParser.parse(data, file: name) }
    if name.hasSuffix(".geojson") { return try GeoJSONParser.parse(data, file: name) }
    return try LocationCSVParser.parse(data, file: name)
}

/// The error a parse throws, or nil when it succeeds.
private func importError(_ parse: () throws(ImportError) -> [LocationRecord]) -> ImportError? {
    do {
        _ = try parse()
        return nil
    } catch {
        return error
    }
}

/// A malformed input, the line its error must name and words its reason must contain.
struct MalformedLocationCase: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    var line: Int?
    var reason: String

    var testDescription: String { name }
}

// MARK: - GPX

@Suite("GPX parser")
struct GPXParserTests {
    @Test("a Strava-like GPX 1.1 track with Garmin extensions")
    func stravaTrack() throws {
        let points = try parseFixture("strava-run.gpx")
        #expect(points.count == 5)
        #expect(points.map(\.line) == [10, 21, 31, 43, 53])
        #expect(points.allSatisfy { $0.source == "gpx:trkpt" })
        let first = try #require(points.first)
        #expect(first.latitude == 51.5007290)
        #expect(first.longitude == -0.1246250)
        #expect(first.altitude == 7.2)
        #expect(first.timestamp == 1_713_074_531)
        #expect(first.speed == nil, "gpxtpx:speed inside <extensions> is ignored")
        #expect(first.horizontalAccuracy == nil)
        #expect(points[3].timestamp == 1_713_074_531 + 111.5)
        let last = try #require(points[4].timestamp)
        #expect(last - 1_713_074_531 == 116, "07:04:07+01:00 is 06:04:07Z, \(last - 1_713_074_531)")
    }

    @Test("GPX 1.0 speed and course are read; hdop and vdop are not accuracies")
    func gpx10SpeedAndCourse() throws {
        let points = try parseFixture("gpx10-speed-course.gpx")
        #expect(points.map(\.line) == [11, 21, 28])
        #expect(points.map(\.speed) == [12.4, 13.1, 0])
        #expect(points.map(\.course) == [87.5, 90, 12.25])
        #expect(points.map(\.altitude) == [35, 35.5, 36])
        #expect(points.map(\.timestamp) == [1_693_666_800, 1_693_666_805, 1_693_666_810])
        #expect(points.allSatisfy { $0.horizontalAccuracy == nil && $0.verticalAccuracy == nil })
    }

    @Test("route points keep a nil timestamp when they have no <time>")
    func route() throws {
        let points = try parseFixture("route.gpx")
        #expect(points.map(\.source) == ["gpx:rtept", "gpx:rtept", "gpx:rtept"])
        #expect(points.map(\.line) == [6, 11, 12])
        #expect(points.map(\.timestamp) == [1_717_232_400, nil, nil])
        #expect(points.map(\.altitude) == [34, nil, nil])
        #expect(points[1].latitude == 52.514507)
    }

    @Test("waypoints without time; a <time> inside <extensions> is ignored")
    func waypoints() throws {
        let points = try parseFixture("waypoints.gpx")
        #expect(points.map(\.source) == ["gpx:wpt", "gpx:wpt", "gpx:wpt"])
        #expect(points.map(\.line) == [3, 11, 16])
        #expect(points.allSatisfy { $0.timestamp == nil })
        #expect(points[1].altitude == 93)
        #expect(points[2].latitude == -33.856784)
        #expect(points[2].longitude == 151.215297)
    }

    @Test("gpxpy's GPX 1.0 file with every field")
    func gpxpyAllFields() throws {
        let points = try parseFixture("gpxpy/gpx1.0_with_all_fields.gpx")
        #expect(points.map(\.source) == ["gpx:wpt", "gpx:wpt"] + Array(repeating: "gpx:rtept", count: 5) + ["gpx:trkpt"])
        #expect(points.map(\.line) == [11, 32, 42, 63, 65, 71, 73, 85])
        #expect(points[0].timestamp == 1_357_092_180)
        #expect(points[0].altitude == 75.1)
        #expect(points[1].timestamp == nil, "the document's <time> belongs to no point")
        #expect(points[2].timestamp == 1_357_092_183)
        #expect(points[7].timestamp == 1_357_041_604, "a time without a zone is UTC")
        #expect(points[7].latitude == 10.1)
        #expect(points[7].longitude == -20.2)
    }

    @Test("gpxpy's Runkeeper waypoint with a Garmin extension and a multi-line <gpx> tag")
    func gpxpyGarminExtension() throws {
        let points = try parseFixture("gpxpy/gpx_with_garmin_extension.gpx")
        #expect(points.count == 1)
        #expect(points.first?.line == 9)
        #expect(points.first?.timestamp == 1_466_206_863)
        #expect(points.first?.altitude == 3.4)
        #expect(points.first?.latitude == 37.778259)
    }

    @Test("gpxpy's file with a byte order mark and no namespace")
    func gpxpyByteOrderMark() throws {
        let points = try parseFixture("gpxpy/unicode_with_bom.gpx")
        #expect(points.count == 1)
        #expect(points.first?.line == 3)
        #expect(points.first?.altitude == -14.6)
        #expect(points.first?.timestamp == 1_464_343_727.8)
    }

    @Test("the demo track in Examples/SampleData")
    func sampleTrack() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/SampleData/track.gpx")
        let points = try GPXParser.parse(try Data(contentsOf: url), file: "track.gpx")
        #expect(points.filter { $0.source == "gpx:wpt" }.count == 2)
        let track = points.filter { $0.source == "gpx:trkpt" }
        #expect(track.count == 60)
        #expect(track.allSatisfy { $0.altitude != nil && $0.timestamp != nil })
        #expect(zip(track, track.dropFirst()).allSatisfy { ($1.timestamp ?? 0) - ($0.timestamp ?? 0) == 30 })
    }

    @Test("a start tag spread over several lines is reported at the line where it ends")
    func multiLineStartTag() throws {
        let text = "<gpx>\n<wpt\n  lat=\"1\"\n  lon=\"2\">\n</wpt>\n<wpt lat=\"3\" lon=\"4\"/><wpt lat=\"5\" lon=\"6\"/>\n</gpx>"
        let points = try GPXParser.parse(Data(text.utf8), file: "m.gpx")
        #expect(points.map(\.line) == [4, 6, 6])
        #expect(points.map(\.latitude) == [1, 3, 5])
    }

    @Test("malformed fixture files name the right line")
    func malformedFixtures() throws {
        let unclosed = importError { () throws(ImportError) in
            try GPXParser.parse((try? locationFixture("malformed-unclosed.gpx")) ?? Data(), file: "malformed-unclosed.gpx")
        }
        #expect(unclosed?.line == 10)
        #expect(unclosed?.reason.contains("not well-formed XML") == true)
        let latitude = importError { () throws(ImportError) in
            try GPXParser.parse((try? locationFixture("malformed-latitude.gpx")) ?? Data(), file: "malformed-latitude.gpx")
        }
        #expect(latitude == ImportError(
            file: "malformed-latitude.gpx", line: 7,
            reason: "<trkpt>: latitude 95.2 is out of range: latitudes are degrees from -90 to 90"
                + " (check that latitude and longitude are not swapped)"
        ))
    }

    static let malformed: [MalformedLocationCase] = [
        .init(name: "not XML", text: "lat,lon\n1,2\n", line: 1, reason: "not well-formed XML: the file is not XML"),
        .init(name: "empty file", text: "", line: nil, reason: "the file is empty"),
        .init(name: "truncated", text: "<gpx>\n<wpt lat=\"1\" lon=\"2\"></wpt>\n", line: 2, reason: "the file ends too early"),
        .init(name: "bare ampersand", text: "<gpx>\n<wpt lat=\"1\" lon=\"2\"><name>A & B</name></wpt></gpx>", line: 2, reason: "not well-formed XML"),
        .init(
            name: "mismatched tag",
            text: "<gpx>\n<wpt lat=\"1\" lon=\"2\">\n</trkpt>\n</gpx>\n", line: 3,
            reason: "not well-formed XML: an end tag does not match the open start tag"
        ),
        .init(name: "KML root", text: "<?xml version=\"1.0\"?>\n<kml><Placemark/></kml>\n", line: 2, reason: "the root element is <kml>, not <gpx>"),
        .init(name: "missing lat", text: "<gpx>\n<trk><trkseg>\n<trkpt lon=\"2\"/>\n</trkseg></trk></gpx>", line: 3, reason: "<trkpt> has no lat attribute"),
        .init(name: "missing lon", text: "<gpx>\n<wpt lat=\"2\"/>\n</gpx>", line: 2, reason: "<wpt> has no lon attribute"),
        .init(name: "lat not a number", text: "<gpx>\n\n<rte><rtept lat=\"north\" lon=\"2\"/></rte></gpx>", line: 3, reason: "lat=\"north\", which is not a number"),
        .init(name: "NaN lon", text: "<gpx><wpt lat=\"1\" lon=\"nan\"/></gpx>", line: 1, reason: "lon=\"nan\", which is not a number"),
        .init(name: "lon out of range", text: "<gpx>\n<wpt lat=\"1\" lon=\"181\"/></gpx>", line: 2, reason: "longitude 181.0 is out of range"),
        .init(
            name: "bad time",
            text: "<gpx>\n<wpt lat=\"1\" lon=\"2\">\n<ele>3</ele>\n<time>yesterday</time>\n</wpt></gpx>",
            line: 4, reason: "<time>yesterday</time> is not an ISO 8601 date-time"
        ),
        .init(name: "bad ele", text: "<gpx>\n<wpt lat=\"1\" lon=\"2\">\n<ele>high</ele></wpt></gpx>", line: 3, reason: "<ele>high</ele> is not a number"),
        .init(name: "no points", text: "<gpx version=\"1.1\">\n<trk><trkseg></trkseg></trk>\n</gpx>\n", line: nil, reason: "no trkpt, rtept or wpt found"),
        .init(name: "nested points", text: "<gpx>\n<wpt lat=\"1\" lon=\"2\">\n<wpt lat=\"1\" lon=\"2\"/></wpt></gpx>", line: 3, reason: "<wpt> starts inside <wpt>"),
    ]

    @Test("malformed GPX is rejected with its line", arguments: malformed)
    func malformedInput(_ input: MalformedLocationCase) {
        let error = importError { () throws(ImportError) in try GPXParser.parse(Data(input.text.utf8), file: "bad.gpx") }
        #expect(error?.file == "bad.gpx")
        #expect(error?.line == input.line)
        #expect(error?.reason.contains(input.reason) == true, "\(String(describing: error))")
    }

    @Test("points in a foreign namespace outside <extensions> are ignored")
    func foreignNamespace() throws {
        let text = """
            <gpx xmlns="http://www.topografix.com/GPX/1/0" xmlns:x="urn:other">
            <x:wpt lat="100" lon="2"/>
            <wpt lat="1" lon="2"><x:time>never</x:time><x:speed>fast</x:speed></wpt>
            </gpx>
            """
        let points = try GPXParser.parse(Data(text.utf8), file: "ns.gpx")
        #expect(points.count == 1)
        #expect(points.first?.line == 3)
        #expect(points.first?.timestamp == nil)
        #expect(points.first?.speed == nil)
    }
}

// MARK: - GeoJSON

@Suite("GeoJSON parser")
struct GeoJSONParserTests {
    @Test("a FeatureCollection with coordTimes, flat and per line")
    func coordTimes() throws {
        let points = try parseFixture("track-coordtimes.geojson")
        #expect(points.count == 7)
        #expect(points.allSatisfy { $0.source == "geojson" })
        #expect(points.map(\.line) == [18, 19, 20, 36, 36, 37, 37])
        #expect(points.map(\.timestamp) == [
            1_714_831_800, 1_714_831_810, 1_714_831_820,
            1_714_834_800, 1_714_834_830, 1_714_835_400, 1_714_835_430,
        ])
        #expect(points.map(\.altitude) == [16, 17.5, nil, nil, nil, nil, nil])
        #expect(points[0].latitude == 37.774929)
        #expect(points[0].longitude == -122.419416)
    }

    @Test("points with a per-feature time and optional properties")
    func places() throws {
        let points = try parseFixture("places.geojson")
        #expect(points.map(\.line) == [4, 7, 10, 13, 13, 16])
        #expect(points.map(\.timestamp) == [1_689_322_500, 1_689_330_000, 1_689_333_600.123, 1_690_848_000, 1_690_848_000, nil])
        #expect(points[0].horizontalAccuracy == 12.5)
        #expect(points[0].altitude == 33, "properties.altitude fills a position without one")
        #expect(points[1].altitude == 21)
        #expect(points[1].horizontalAccuracy == 5)
        #expect(points[1].speed == 1.4)
        #expect(points[1].course == 270)
        #expect(points[1].floor == 2)
        #expect(points[2].course == 45.5)
        #expect(points[2].verticalAccuracy == 3)
        #expect(points[3].latitude == 35.689487)
        #expect(points[4].longitude == 135.768029)
    }

    @Test("a bare geometry, a single Feature and a GeometryCollection")
    func documentShapes() throws {
        let bare = try GeoJSONParser.parse(Data(#"{"type": "Point", "coordinates": [1.5, -2.5, 3]}"#.utf8), file: "p.geojson")
        #expect(bare == [{
            var record = LocationRecord(timestamp: nil, latitude: -2.5, longitude: 1.5, source: "geojson", line: 1)
            record.altitude = 3
            return record
        }()])
        let feature = """
            {"type": "Feature",
             "properties": {"times": [0, "1970-01-01T00:01:00Z"]},
             "geometry": {"type": "GeometryCollection", "geometries": [
               {"type": "Point", "coordinates": [10, 20]},
               {"type": "LineString", "coordinates": [[11, 21]]}]}}
            """
        let points = try GeoJSONParser.parse(Data(feature.utf8), file: "f.geojson")
        #expect(points.map(\.timestamp) == [0, 60])
        #expect(points.map(\.line) == [4, 5])
    }

    static let malformed: [MalformedLocationCase] = [
        .init(name: "empty", text: "", line: 1, reason: "invalid JSON: the file is empty"),
        .init(name: "missing comma", text: "{\n\"type\": \"Point\"\n\"coordinates\": [1, 2]}", line: 3, reason: "expected ',' or '}'"),
        .init(name: "truncated", text: "{\"type\": \"LineString\",\n\"coordinates\": [[1, 2],\n", line: 3, reason: "ends too early"),
        .init(name: "trailing text", text: "{\"type\": \"Point\", \"coordinates\": [1, 2]}\n}", line: 2, reason: "after the end of the JSON document"),
        .init(name: "unclosed string", text: "{\n\"type\": \"Point,\n\"coordinates\": [1, 2]}", line: 2, reason: "not closed before the end of the line"),
        .init(name: "single quotes", text: "{'type': 'Point'}", line: 1, reason: "member name in double quotes"),
        .init(name: "not an object", text: "[1, 2]", line: 1, reason: "expected a GeoJSON object"),
        .init(name: "no type", text: "{\n\"features\": []}", line: 1, reason: "has no \"type\" string"),
        .init(name: "one number", text: "{\"type\": \"MultiPoint\", \"coordinates\": [\n[1, 2],\n[3]]}", line: 3, reason: "at least two numbers"),
        .init(name: "string coordinate", text: "{\"type\": \"Point\",\n\"coordinates\": [\"1\", 2]}", line: 2, reason: "must be numbers"),
        .init(name: "latitude out of range", text: "{\"type\": \"Point\",\n \"coordinates\":\n [10, 91]}", line: 3, reason: "latitude 91.0 is out of range"),
        .init(
            name: "swapped order",
            text: "{\"type\": \"Point\", \"coordinates\": [52.5, 200.1]}", line: 1,
            reason: "latitude 200.1 is out of range"
        ),
        .init(
            name: "coordTimes too short",
            text: """
                {"type": "Feature",
                 "properties": {
                   "coordTimes": ["2024-01-01T00:00:00Z"]},
                 "geometry": {"type": "LineString", "coordinates": [[1, 2], [3, 4]]}}
                """,
            line: 3, reason: "\"coordTimes\" has 1 timestamps for 2 positions"
        ),
        .init(
            name: "coordTimes line too short",
            text: """
                {"type": "Feature",
                 "properties": {"coordTimes": [
                   [0, 1],
                   [2]]},
                 "geometry": {"type": "MultiLineString", "coordinates": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]}}
                """,
            line: 4, reason: "1 timestamps for a line of 2 positions"
        ),
        .init(
            name: "bad coordTimes entry",
            text: "{\"type\": \"Feature\", \"properties\": {\"coordTimes\": [\n\"soon\"]},\n\"geometry\": {\"type\": \"Point\", \"coordinates\": [1, 2]}}",
            line: 2, reason: "a coordTimes entry \"soon\" is not a timestamp"
        ),
        .init(
            name: "bad feature time",
            text: "{\"type\": \"Feature\",\n\"properties\": {\"time\": true},\n\"geometry\": {\"type\": \"Point\", \"coordinates\": [1, 2]}}",
            line: 2, reason: "properties.time is a boolean"
        ),
        .init(
            name: "polygon",
            text: "{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"properties\": {},\n\"geometry\": {\"type\": \"Polygon\", \"coordinates\": []}}]}",
            line: 3, reason: "unsupported geometry type \"Polygon\""
        ),
        .init(name: "unknown type", text: "{\"type\": \"Circle\", \"center\": [1, 2]}", line: 1, reason: "unsupported geometry type \"Circle\""),
        .init(
            name: "missing geometry",
            text: "{\"type\": \"FeatureCollection\", \"features\": [\n\n{\"type\": \"Feature\", \"properties\": {}}]}",
            line: 3, reason: "has no \"geometry\" member"
        ),
        .init(name: "no points", text: "{\"type\": \"FeatureCollection\", \"features\": []}", line: nil, reason: "no points found"),
        .init(name: "too deep", text: String(repeating: "[", count: 600), line: 1, reason: "nest more than 512 levels"),
    ]

    @Test("malformed GeoJSON is rejected with its line", arguments: malformed)
    func malformedInput(_ input: MalformedLocationCase) {
        let error = importError { () throws(ImportError) in try GeoJSONParser.parse(Data(input.text.utf8), file: "bad.geojson") }
        #expect(error?.file == "bad.geojson")
        #expect(error?.line == input.line)
        #expect(error?.reason.contains(input.reason) == true, "\(String(describing: error))")
    }

    @Test("malformed fixture files name the right line")
    func malformedFixtures() throws {
        let position = importError { () throws(ImportError) in
            try GeoJSONParser.parse((try? locationFixture("malformed-position.geojson")) ?? Data(), file: "p")
        }
        #expect(position?.line == 11)
        #expect(position?.reason.contains("at least two numbers") == true)
        let syntax = importError { () throws(ImportError) in
            try GeoJSONParser.parse((try? locationFixture("malformed-syntax.geojson")) ?? Data(), file: "s")
        }
        #expect(syntax?.line == 6)
        #expect(syntax?.reason == "invalid JSON: expected ',' or ']' in an array, found '{'")
    }

    @Test("JSON strings: escapes and surrogate pairs")
    func jsonStrings() throws {
        let json = try LineNumberedJSON.parse(Data(#"{"a": "x\"\\\/\n\u00e9\ud83d\ude00", "b": [true, false, null, -1.5e2]}"#.utf8), file: "j")
        #expect(json["a"]?.string == "x\"\\/\né😀")
        #expect(json["b"]?.array?.map(\.kind) == ["a boolean", "a boolean", "null", "a number"])
        #expect(json["b"]?.array?.last?.number == -150)
    }
}

// MARK: - CSV

@Suite("Location CSV parser")
struct LocationCSVParserTests {
    @Test("a Google-Takeout-like CSV with CRLF, quotes and a multi-line field")
    func takeout() throws {
        let points = try parseFixture("takeout.csv")
        #expect(points.count == 5)
        #expect(points.allSatisfy { $0.source == "csv" })
        #expect(points.map(\.line) == [2, 3, 5, 6, 8])
        #expect(points.map(\.timestamp) == [1_551_427_965.123, 1_551_428_042, 1_551_428_100, 1_551_428_160, 1_551_428_220])
        #expect(points.map(\.horizontalAccuracy) == [14, 22, 5, 7, nil])
        #expect(points.map(\.altitude) == [12, nil, 15, 15.5, nil])
        #expect(points.map(\.speed) == [0, 1, 2.5, 2.1, nil])
        #expect(points.map(\.course) == [nil, 180, 92, 95, nil])
        #expect(points.map(\.verticalAccuracy) == [3, nil, 4, 4, nil])
        #expect(points[0].latitude == 37.4219999)
        #expect(points[0].longitude == -122.0840575)
    }

    @Test("a semicolon CSV with a byte order mark and decimal commas")
    func semicolon() throws {
        let points = try parseFixture("semicolon.csv")
        #expect(points.map(\.line) == [2, 3, 4])
        #expect(points.map(\.timestamp) == [1_664_787_600, 1_664_787_630, 1_664_787_660])
        #expect(points.map(\.latitude) == [52.520008, 52.520310, 52.520600])
        #expect(points.map(\.longitude) == [13.404954, 13.405500, 13.406100])
        #expect(points.map(\.horizontalAccuracy) == [8.5, nil, 10])
        #expect(points.map(\.altitude) == [34, 35.25, nil])
        #expect(points.map(\.floor) == [0, nil, -1])
    }

    @Test("header aliases", arguments: [
        "time,lat,lon", "Date,Latitude,Longitude", "DATETIME,lat,lng", "timestamp,lat,long",
        " time , lat , lon ", "\"time\",\"lat\",\"lon\"",
    ])
    func headerAliases(_ header: String) throws {
        let points = try LocationCSVParser.parse(Data("\(header)\n1700000000,1,2\n".utf8), file: "a.csv")
        #expect(points == [LocationRecord(timestamp: 1_700_000_000, latitude: 1, longitude: 2, source: "csv", line: 2)])
    }

    /// An optional field of `LocationRecord` that a CSV column fills.
    enum OptionalField: Sendable {
        case horizontalAccuracy, verticalAccuracy, altitude, speed, course

        func value(of record: LocationRecord) -> Double? {
            switch self {
            case .horizontalAccuracy: record.horizontalAccuracy
            case .verticalAccuracy: record.verticalAccuracy
            case .altitude: record.altitude
            case .speed: record.speed
            case .course: record.course
            }
        }
    }

    @Test("optional column aliases", arguments: [
        ("accuracy", OptionalField.horizontalAccuracy), ("horizontal_accuracy", .horizontalAccuracy),
        ("horizontalAccuracy", .horizontalAccuracy), ("vertical_accuracy", .verticalAccuracy),
        ("verticalAccuracy", .verticalAccuracy), ("ele", .altitude), ("elevation", .altitude), ("altitude", .altitude),
        ("bearing", .course), ("heading", .course), ("course", .course), ("speed", .speed), ("velocity", .speed),
    ])
    func optionalAliases(_ name: String, _ field: OptionalField) throws {
        let points = try LocationCSVParser.parse(Data("time,lat,lon,\(name)\n1700000000,1,2,7.5\n".utf8), file: "a.csv")
        #expect(points.first.flatMap(field.value(of:)) == 7.5)
    }

    static let malformed: [MalformedLocationCase] = [
        .init(name: "empty", text: "", line: nil, reason: "the file is empty"),
        .init(name: "only blank lines", text: "\n\r\n  \n", line: nil, reason: "the file is empty"),
        .init(
            name: "missing columns", text: "when,lat,x\n1,2,3\n", line: 1,
            reason: "missing the timestamp and longitude columns (found columns: \"when\", \"lat\", \"x\")"
        ),
        .init(name: "no header", text: "1700000000,1,2\n", line: 1, reason: "missing the timestamp and latitude and longitude columns"),
        .init(name: "date and time", text: "date,time,lat,lon\n2024-01-01,10:00,1,2\n", line: 1, reason: "the columns \"date\" and \"time\" both name the timestamp field"),
        .init(name: "header only", text: "time,lat,lon\n", line: 1, reason: "the CSV has a header but no rows"),
        .init(name: "short row", text: "time,lat,lon\n1,2,3\n\n1,2\n", line: 4, reason: "this row has 2 fields but the header has 3"),
        .init(name: "long row", text: "time,lat,lon\n1,2,3,4\n", line: 2, reason: "this row has 4 fields but the header has 3"),
        .init(name: "bad number", text: "time,Latitude,lon\n1,2,3\n2,north,3\n", line: 3, reason: "column \"Latitude\": \"north\" is not a number"),
        .init(name: "bad optional number", text: "time,lat,lon,Speed\n1,2,3,fast\n", line: 2, reason: "column \"Speed\": \"fast\" is not a number"),
        .init(name: "bad timestamp", text: "time,lat,lon\n2024-13-01T00:00:00Z,2,3\n", line: 2, reason: "column \"time\": \"2024-13-01T00:00:00Z\" is not a timestamp"),
        .init(name: "empty timestamp", text: "time,lat,lon\n,2,3\n", line: 2, reason: "column \"time\": the cell is empty"),
        .init(name: "empty latitude", text: "time,lat,lon\r\n1,,3\r\n", line: 2, reason: "column \"lat\": the cell is empty"),
        .init(name: "latitude out of range", text: "time,lat,lon\n1,-90.5,3\n", line: 2, reason: "latitude -90.5 is out of range"),
        .init(name: "longitude out of range", text: "time,lat,lon\n1,2,180.01\n", line: 2, reason: "longitude 180.01 is out of range"),
        .init(name: "fractional floor", text: "time,lat,lon,floor\n1,2,3,1.5\n", line: 2, reason: "column \"floor\": 1.5 is not a whole number"),
        .init(
            name: "unterminated quote", text: "time,lat,lon,note\n1,2,3,ok\n1,2,3,\"open\n\n1,2,3,x\n", line: 3,
            reason: "a quoted field starting on this line is never closed"
        ),
        .init(name: "text after quote", text: "time,lat,lon\n\"1\"x,2,3\n", line: 2, reason: "a quoted field is followed by 'x'"),
    ]

    @Test("malformed CSV is rejected with its line", arguments: malformed)
    func malformedInput(_ input: MalformedLocationCase) {
        let error = importError { () throws(ImportError) in try LocationCSVParser.parse(Data(input.text.utf8), file: "bad.csv") }
        #expect(error?.file == "bad.csv")
        #expect(error?.line == input.line)
        #expect(error?.reason.contains(input.reason) == true, "\(String(describing: error))")
    }

    @Test("malformed fixture files name the right line")
    func malformedFixtures() throws {
        let count = importError { () throws(ImportError) in
            try LocationCSVParser.parse((try? locationFixture("malformed-field-count.csv")) ?? Data(), file: "c.csv")
        }
        #expect(count?.line == 3)
        #expect(count?.description.hasPrefix("c.csv:3: this row has 3 fields but the header has 4") == true)
        let unterminated = importError { () throws(ImportError) in
            try LocationCSVParser.parse((try? locationFixture("malformed-unterminated.csv")) ?? Data(), file: "u.csv")
        }
        #expect(unterminated?.line == 4)
    }

    @Test("lines after quoted line breaks and lone CRs are counted")
    func lineCounting() throws {
        let text = "time,note,lat,lon\r\n1,\"a\r\nb\nc\",1,2\r\n\r\n2,x,3,4\r5,y,6,7"
        let points = try LocationCSVParser.parse(Data(text.utf8), file: "l.csv")
        #expect(points.map(\.line) == [2, 6, 7])
        #expect(points.map(\.latitude) == [1, 3, 6])
    }

    @Test("100,000 rows")
    func largeFile() throws {
        var text = "timestamp,latitude,longitude,accuracy,altitude,speed,course\n"
        text.reserveCapacity(100_000 * 80)
        for row in 0..<100_000 {
            text += "2024-05-01T12:\(row / 600 % 60 < 10 ? "0" : "")\(row / 600 % 60):\(row % 60 < 10 ? "0" : "")\(row % 60).000Z,"
            text += "52.\(100_000 + row),13.\(400_000 + row),5.5,34.2,1.25,180\n"
        }
        let points = try LocationCSVParser.parse(Data(text.utf8), file: "big.csv")
        #expect(points.count == 100_000)
        #expect(points.last?.line == 100_001)
        #expect(points.last?.longitude == 13.499999)
    }
}
