import EscrowCore
@testable import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Synchronization
import Testing

/// Under a location accuracy below exact, access SQL reads only the masked copies of Location and
/// Photos: every way of naming the stored tables is refused, what runs holds masked coordinates
/// and never a stored one, the copies follow the view and the data, and the data file is
/// byte-identical afterwards.
@Suite struct LocationViewGuardTests {
    /// What a statement gets under the masked view.
    enum Outcome: Sendable {
        /// The guard refuses it, for this reason.
        case refused(AccessRefusal)
        /// It runs and returns this many rows; every number in them (in text too) is a masked
        /// coordinate or a whole number, none is near a stored coordinate, and when there are
        /// rows at least one masked coordinate is among them.
        case masked(rows: Int)
        /// It runs and returns one row with this count and nothing else.
        case count(Int64)
        /// It runs; the locating columns besides the coordinates are all NULL and
        /// horizontalAccuracy is the view's.
        case dropped
    }

    static let bypassAttempts: [(sql: String, outcome: Outcome)] = [
        // the plain query, and naming the stored table
        ("SELECT latitude, longitude FROM Location", .masked(rows: 4)),
        ("SELECT * FROM Location", .masked(rows: 4)),
        ("SELECT latitude, longitude FROM main.Location", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT latitude, longitude FROM \"main\".\"Location\"", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT latitude FROM MAIN.location", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT latitude FROM [main] /* split */ . `Location`", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT main.Location.latitude FROM main.Location", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT id FROM main.Location", .refused(.unmaskedLocation("main.Location.id"))),
        ("SELECT 1 AS one FROM main.Location LIMIT 1", .refused(.unmaskedLocation("main.Location"))),
        // subqueries, joins and CTEs over the stored table
        ("SELECT * FROM (SELECT latitude FROM main.Location)", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT id FROM Location WHERE latitude IN (SELECT latitude FROM main.Location)",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT id FROM Location l WHERE EXISTS (SELECT 1 FROM main.Location m WHERE m.id = l.id AND m.latitude > 41.8)",
         .refused(.unmaskedLocation("main.Location.id"))),
        ("SELECT (SELECT latitude FROM main.Location LIMIT 1) AS first", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("VALUES ((SELECT max(latitude) FROM main.Location))", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT CASE WHEN (SELECT latitude FROM main.Location WHERE id = 1) > 41.87 THEN 1 ELSE 0 END AS north",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT l.latitude, m.latitude AS stored FROM Location l JOIN main.Location m ON l.id = m.id",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT l.latitude FROM Location l NATURAL JOIN main.Location", .refused(.implicitJoin("NATURAL"))),
        // USING and NATURAL joins compare (and for FULL JOIN, return) the joined columns without the
        // authorizer hearing of them: refused outright, masked table or not
        ("SELECT latitude, longitude FROM (SELECT 1000 AS latitude, 1000 AS longitude) g FULL JOIN main.Location USING (latitude, longitude)",
         .refused(.implicitJoin("USING"))),
        ("SELECT latitude FROM (SELECT 1000 AS latitude) g NATURAL FULL JOIN main.Location",
         .refused(.implicitJoin("NATURAL"))),
        ("SELECT latitude, longitude FROM (SELECT 1000 AS latitude, 1000 AS longitude) g FULL JOIN main.Photos USING (latitude, longitude)",
         .refused(.implicitJoin("USING"))),
        ("WITH guess(latitude) AS (VALUES (41.8781), (41.5)) SELECT guess.latitude FROM guess JOIN main.Location USING (latitude)",
         .refused(.implicitJoin("USING"))),
        ("""
         WITH RECURSIVE guess(latitude) AS (SELECT 41.7 UNION ALL SELECT round(latitude + 0.0001, 4) FROM guess WHERE latitude < 42)
         SELECT guess.latitude FROM guess JOIN main.Location USING (latitude)
         """, .refused(.implicitJoin("USING"))),
        ("SELECT latitude FROM (SELECT 1000 AS latitude) g FULL JOIN Location USING (latitude)", .refused(.implicitJoin("USING"))),
        ("SELECT l.id, p.latitude, p.longitude FROM Location l JOIN Photos p ON p.latitude = l.latitude AND p.longitude = l.longitude",
         .masked(rows: 3)),
        ("SELECT l.id, p.latitude FROM Location l JOIN main.Photos p ON p.latitude = l.latitude AND p.longitude = l.longitude",
         .refused(.unmaskedLocation("main.Photos.latitude"))),
        ("WITH Location AS (SELECT latitude, longitude FROM main.Location) SELECT * FROM Location",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("WITH nearby AS (SELECT latitude, longitude FROM Location) SELECT * FROM nearby", .masked(rows: 4)),
        ("""
         WITH RECURSIVE walk(n, latitude) AS (
             SELECT 1, (SELECT latitude FROM main.Location WHERE id = 1)
             UNION ALL SELECT n + 1, (SELECT latitude FROM main.Location WHERE id = n + 1) FROM walk WHERE n < 4)
         SELECT n, latitude FROM walk
         """, .refused(.unmaskedLocation("main.Location.latitude"))),
        ("""
         WITH RECURSIVE walk(n, latitude) AS (
             SELECT 1, (SELECT latitude FROM Location WHERE id = 1)
             UNION ALL SELECT n + 1, (SELECT latitude FROM Location WHERE id = n + 1) FROM walk WHERE n < 4)
         SELECT n, latitude FROM walk
         """, .masked(rows: 4)),
        // coordinates smuggled through JSON, text and aggregates
        ("SELECT value FROM json_each((SELECT json_group_array(latitude) FROM main.Location))",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT value FROM json_each((SELECT json_group_array(latitude) FROM Location))", .masked(rows: 4)),
        ("SELECT value FROM Photos, json_each(json_array(Photos.latitude, Photos.longitude)) WHERE Photos.latitude IS NOT NULL",
         .masked(rows: 6)),
        ("SELECT json_object('lat', latitude, 'lon', longitude) AS point FROM main.Location",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT json_object('lat', latitude, 'lon', longitude) AS point FROM Location", .masked(rows: 4)),
        ("SELECT group_concat(latitude || ',' || longitude, ';') AS path FROM main.Location",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT group_concat(latitude || ',' || longitude, ';') AS path FROM Location", .masked(rows: 1)),
        ("SELECT printf('%.6f %.6f', latitude, longitude) AS point FROM main.Location",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT printf('%.6f %.6f', latitude, longitude) AS point FROM Location", .masked(rows: 4)),
        ("SELECT latitude FROM Location UNION SELECT latitude FROM main.Location", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT latitude FROM Location UNION ALL SELECT latitude FROM Photos", .masked(rows: 12)),
        ("SELECT id, lag(latitude) OVER (ORDER BY timestamp) AS previous FROM main.Location",
         .refused(.unmaskedLocation("main.Location.id"))),
        ("SELECT id, lag(latitude) OVER (ORDER BY timestamp) AS previous, max(longitude) OVER () AS east FROM Location",
         .masked(rows: 4)),
        ("SELECT min(latitude), max(latitude), min(longitude), max(longitude) FROM Location", .masked(rows: 1)),
        // other names of the masked copies, and of the temporary schema
        ("SELECT latitude, longitude FROM temp.Location", .masked(rows: 4)),
        ("SELECT temp.Location.latitude FROM Location", .masked(rows: 4)),
        ("SELECT latitude FROM Location AS main", .masked(rows: 4)),
        ("SELECT latitude, longitude FROM temp.Photos WHERE latitude IS NOT NULL", .masked(rows: 3)),
        ("SELECT * FROM sqlite_temp_master", .refused(.internalTable("sqlite_temp_master"))),
        ("SELECT sql FROM temp.sqlite_schema", .refused(.internalTable("sqlite_temp_master"))),
        // Photos
        ("SELECT latitude, longitude FROM main.Photos", .refused(.unmaskedLocation("main.Photos.latitude"))),
        ("SELECT contentHash FROM main.Photos", .refused(.unmaskedLocation("main.Photos.contentHash"))),
        ("SELECT latitude, longitude FROM Photos", .masked(rows: 8)),
        // counts and the dropped columns
        ("SELECT count(*) AS n FROM Location", .count(4)),
        ("SELECT count(*) AS n FROM Photos", .count(8)),
        ("SELECT count(*) AS n FROM main.Location", .refused(.unmaskedLocation("main.Location"))),
        ("SELECT count(latitude) AS n FROM main.Location", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT altitude, verticalAccuracy, speed, course, floor, horizontalAccuracy FROM Location", .dropped),
        // filters and orderings leak too, even with no coordinate selected
        ("SELECT 'inside' AS hit FROM main.Location WHERE latitude BETWEEN 41.87 AND 41.88 LIMIT 1",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT count(*) AS n FROM main.Location WHERE latitude BETWEEN 41.8 AND 41.9",
         .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT count(*) AS n FROM Location WHERE latitude BETWEEN 41.8 AND 41.9", .count(0)),
        ("SELECT latitude FROM Location WHERE latitude = 41.8781", .masked(rows: 0)),
        ("SELECT 1 AS one FROM main.Location ORDER BY latitude", .refused(.unmaskedLocation("main.Location.latitude"))),
        ("SELECT timestamp FROM Location ORDER BY (SELECT m.latitude FROM main.Location m WHERE m.id = Location.id)",
         .refused(.unmaskedLocation("main.Location.latitude"))),
    ]

    @Test func atLeastTwentyFiveBypassAttempts() {
        #expect(Self.bypassAttempts.count >= 25)
    }

    @Test(arguments: LocationViewGuardTests.bypassAttempts)
    func accessSQLUnderAMaskedViewNeverSeesAStoredCoordinate(sql: String, outcome: Outcome) async throws {
        try await Fixture.with { fixture in
            let view = Self.cellCentres()
            switch outcome {
            case .refused(let refusal):
                #expect(throws: AccessError.refused(refusal)) { try fixture.run(sql, view: view) }
            case .masked(let rows):
                let frame = try fixture.run(sql, view: view)
                #expect(frame.rowCount == rows)
                fixture.expectOnlyMasked(frame, by: view, sql: sql)
            case .count(let count):
                let frame = try fixture.run(sql, view: view)
                #expect(frame.rowCount == 1 && frame.columns.count == 1)
                #expect(frame.columns.first?.int64(at: 0) == count)
            case .dropped:
                let frame = try fixture.run(sql, view: view)
                #expect(frame.rowCount == 4)
                for column in frame.columns.dropLast() {
                    #expect((0..<frame.rowCount).allSatisfy { column.isNull(at: $0) }, "\(column.name) is not dropped")
                }
                let accuracy = try #require(frame.columns.last)
                #expect((0..<frame.rowCount).allSatisfy { accuracy.double(at: $0) == view.horizontalAccuracy })
            }
        }
    }

    /// The flow's SQL is checked (lineage) while the masked copies of an earlier run are still in
    /// `temp`; an exact run afterwards reads the stored points again.
    @Test func anExactFlowAfterAMaskedRunSeesItsLineageAndTheStoredPoints() async throws {
        try await Fixture.with { fixture in
            let view = Self.cellCentres()
            let masked = try fixture.run("SELECT latitude, longitude FROM Location ORDER BY id", view: view)
            fixture.expectOnlyMasked(masked, by: view, sql: "the masked run")
            #expect(fixture.connection.materializedView != nil)

            let exactSQL = "SELECT latitude, longitude FROM main.Location ORDER BY timestamp"
            let lineage = try fixture.connection.lineage(of: exactSQL)
            #expect(lineage.sorted.map(\.description) == ["Location.latitude", "Location.longitude", "Location.timestamp"])
            #expect(try fixture.connection.lineage(of: "SELECT count(*) FROM Location").sorted.map(\.description) == ["Location.*"])
            // Checking its lineage does not let the statement run under the view.
            #expect(throws: AccessError.refused(.unmaskedLocation("main.Location.latitude"))) {
                try fixture.run(exactSQL, view: view)
            }

            let exact = try fixture.run("SELECT latitude, longitude, altitude, horizontalAccuracy FROM Location ORDER BY id", view: nil)
            #expect(fixture.connection.materializedView == nil)
            let stored = fixture.storedLocations
            #expect(exact.rowCount == stored.count)
            for (row, point) in stored.enumerated() {
                #expect(exact.columns[0].double(at: row) == point.latitude)
                #expect(exact.columns[1].double(at: row) == point.longitude)
            }
            #expect(exact.columns[2].double(at: 3) == Fixture.fullFix.altitude)
            #expect(exact.columns[3].double(at: 3) == Fixture.fullFix.horizontalAccuracy)
            let qualified = try fixture.run(exactSQL, view: nil)
            #expect(qualified.rowCount == stored.count)

            // And the next masked run is masked again.
            let again = try fixture.run("SELECT latitude, longitude FROM Location ORDER BY id", view: view)
            fixture.expectOnlyMasked(again, by: view, sql: "the masked run after the exact one")
        }
    }

    /// A run gets its own view's points: not the cached copies of another view, not rebuilt when
    /// nothing changed, rebuilt when the data changed.
    @Test func eachRunSeesItsOwnViewOverTheCurrentData() async throws {
        try await Fixture.with { fixture in
            let callsA = Calls()
            let callsB = Calls()
            let viewA = Self.cellCentres(counting: callsA)
            let viewB = LocationView(id: "cell-quarters", horizontalAccuracy: 5000) { latitude, longitude in
                callsB.add()
                return (-(latitude.rounded(.down) + 0.25), -(longitude.rounded(.down) + 0.25))
            }
            let sql = "SELECT latitude, longitude, horizontalAccuracy FROM Location ORDER BY id"
            let maskedPoints = Fixture.storedPhotoPoints.count + fixture.storedLocations.count

            var frame = try fixture.run(sql, view: viewA)
            #expect(callsA.count == maskedPoints)
            fixture.expectPoints(frame, masked: viewA, of: fixture.storedLocations)
            let builtA = try #require(fixture.connection.materializedView)
            let callsBefore = callsA.count
            frame = try fixture.run(sql, view: viewA)
            #expect(callsA.count == callsBefore, "the same view over the same data was built again")
            #expect(fixture.connection.materializedView?.id == builtA.id)
            #expect(fixture.connection.materializedView?.dataVersion == builtA.dataVersion)
            fixture.expectPoints(frame, masked: viewA, of: fixture.storedLocations)

            frame = try fixture.run(sql, view: viewB)
            #expect(callsB.count == maskedPoints)
            #expect(fixture.connection.materializedView?.id.hasPrefix("cell-quarters|") == true)
            fixture.expectPoints(frame, masked: viewB, of: fixture.storedLocations)
            fixture.expectNone(of: fixture.maskedValues(by: viewA), in: frame)
            let callsBeforeA = callsA.count
            frame = try fixture.run(sql, view: viewA)
            #expect(callsA.count == callsBeforeA + maskedPoints)
            fixture.expectPoints(frame, masked: viewA, of: fixture.storedLocations)

            // Another connection adds a fix: the copy is rebuilt and has it, masked.
            try fixture.insert(Fixture.madrid)
            let stored = try Fixture.storedLocations(of: fixture.temporary.home)
            #expect(stored.count == 5)
            let callsBeforeInsert = callsA.count
            frame = try fixture.run(sql, view: viewA)
            #expect(callsA.count == callsBeforeInsert + stored.count + Fixture.storedPhotoPoints.count)
            fixture.expectPoints(frame, masked: viewA, of: stored)
            fixture.expectOnlyMasked(frame, by: viewA, sql: sql, stored: stored)
            #expect(frame.columns[0].double(at: 4) == -40.5 && frame.columns[1].double(at: 4) == 3.5)
            _ = try fixture.run(sql, view: viewB)
            _ = try fixture.run(sql, view: nil)
        }
    }

    /// A photo stored with a longitude but no latitude: the masked copy must not pass the stored
    /// longitude through (the mask needs both coordinates, so it is not applied to that row).
    @Test func aPhotoWithOnlyOneCoordinateDoesNotShowTheStoredOne() async throws {
        let longitude = 151.2093
        try await Fixture.with(extraPhotos: [(nil, longitude)]) { fixture in
            let sql = "SELECT latitude, longitude FROM Photos WHERE originalFilename = 'IMG_located_3.jpeg'"
            let frame = try fixture.run(sql, view: Self.cellCentres())
            #expect(frame.rowCount == 1)
            #expect(!Fixture.numbers(in: frame).contains { abs($0 - longitude) < 0.01 },
                    "\(sql) shows the stored longitude under a masked view")
        }
    }

    /// A picture's own EXIF GPS block is in the asset bytes the frame carries: under a masked view
    /// it must not give compute() the stored point either.
    @Test func aPhotosAssetBytesDoNotCarryItsStoredPointUnderAMaskedView() async throws {
        try await Fixture.with { fixture in
            let point = (latitude: -33.8688, longitude: 151.2093)
            let bytes = MediaFixtures.jpeg(exifDate: "2025:03:04 10:00:00", gps: point)
            let assetID = AssetStore.assetID(of: bytes)
            try fixture.assets.store(bytes, as: assetID)
            var info = MediaInfo(mediaType: .image, format: "jpeg")
            info.latitude = point.latitude
            info.longitude = point.longitude
            try fixture.insert(PhotoRow(assetID: assetID, info: info, modificationDate: 1_735_689_600,
                                        byteSize: bytes.count, originalFilename: "IMG_GPS.jpeg"))
            let frame = try fixture.run("SELECT asset FROM Photos WHERE originalFilename = 'IMG_GPS.jpeg'", view: Self.cellCentres())
            let delivered = try #require(frame.columns.first?.bytes(at: 0))
            let probed = try MediaProbe.probe(delivered, file: "IMG_GPS.jpeg")
            #expect(probed?.latitude.map { abs($0 - point.latitude) < 0.01 } != true,
                    "SELECT asset FROM Photos gives compute() the picture's EXIF GPS, the stored point")
        }
    }

    /// What the individual approves is the lineage: a USING join reads the joined columns of
    /// both sides without the authorizer hearing of them, so its lineage would say it reads
    /// nothing. Such SQL is refused before it can become a dataflow, exact or not.
    @Test func aUsingJoinCannotHideWhatItReadsFromTheLineage() async throws {
        try await Fixture.with { fixture in
            let sql = "SELECT latitude, longitude FROM (SELECT 1000 AS latitude, 1000 AS longitude) g FULL JOIN Location USING (latitude, longitude)"
            #expect(throws: AccessError.refused(.implicitJoin("USING"))) { try fixture.connection.lineage(of: sql) }
            #expect(throws: AccessError.refused(.implicitJoin("NATURAL"))) {
                try fixture.connection.lineage(of: "SELECT latitude FROM (SELECT 1000 AS latitude) g NATURAL JOIN Location")
            }
        }
    }

    // MARK: Views

    /// Moves each point to the centre of its one-degree cell mirrored through the Earth's
    /// centre: lossy (no arithmetic on a result gives the stored point back) and far from every
    /// stored point, so a stored value in a result cannot pass for a masked one. Every masked
    /// value ends in .5, no stored one does.
    static func cellCentres(counting calls: Calls? = nil) -> LocationView {
        LocationView(id: "cell-centres", horizontalAccuracy: 1000) { latitude, longitude in
            calls?.add()
            return (-(latitude.rounded(.down) + 0.5), -(longitude.rounded(.down) + 0.5))
        }
    }

    /// How many points a view's mask was asked for.
    final class Calls: Sendable {
        private let counted = Mutex(0)
        var count: Int { counted.withLock { $0 } }
        func add() { counted.withLock { $0 += 1 } }
    }
}

/// A seeded home, the guarded connection on it, the stored points read from the data file
/// itself (not through the guard), and the data file's bytes to compare at the end.
private struct Fixture {
    let temporary: TemporaryHome
    let connection: GuardedConnection
    let assets: AssetStore
    /// Location's stored points, by id.
    let storedLocations: [(latitude: Double, longitude: Double)]
    /// Every stored latitude and longitude, of Location and Photos.
    let storedValues: [Double]
    /// The data file as the test last wrote it.
    let dataFile: DataFileBytes

    /// Besides the sample's three fixes in Chicago: one with every locating column filled.
    static let fullFix: LocationRecord = {
        var fix = LocationRecord(timestamp: 1_735_700_400, latitude: -34.6037, longitude: -58.3816, source: "gpx:trkpt", line: 7)
        fix.altitude = 25
        fix.horizontalAccuracy = 5
        fix.verticalAccuracy = 3
        fix.speed = 1.5
        fix.course = 90
        fix.floor = 2
        return fix
    }()
    /// Photos with coordinates: one at the first Chicago fix, two elsewhere.
    static let storedPhotoPoints: [(latitude: Double?, longitude: Double?)] = [
        (41.8781, -87.6298), (-33.8688, 151.2093), (35.6762, 139.6503),
    ]
    /// A fix added while the guarded connection is open.
    static let madrid = LocationRecord(timestamp: 1_735_704_000, latitude: 40.4168, longitude: -3.7038, source: "csv", line: 9)

    /// Runs `body` on a new seeded home, then checks the data file is byte-identical to what
    /// the test itself last wrote.
    static func with(extraPhotos: [(latitude: Double?, longitude: Double?)] = [],
                     _ body: (Fixture) throws -> Void) async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let assets = AssetStore(root: temporary.home.assetsURL)
            var rows: [PhotoRow] = []
            for (index, point) in (storedPhotoPoints + extraPhotos).enumerated() {
                let bytes = Array("located photo \(index)".utf8)
                let assetID = AssetStore.assetID(of: bytes)
                try assets.store(bytes, as: assetID)
                var info = MediaInfo(mediaType: .image, format: "jpeg")
                info.latitude = point.latitude
                info.longitude = point.longitude
                rows.append(PhotoRow(assetID: assetID, info: info, modificationDate: 1_735_689_600,
                                     byteSize: bytes.count, originalFilename: "IMG_located_\(index).jpeg"))
            }
            do {
                let writer = try DataWriter(home: temporary.home)
                _ = try writer.insertLocations([fullFix])
                _ = try writer.insertPhotos(rows)
            }
            let fixture = Fixture(temporary: temporary, connection: try GuardedConnection(home: temporary.home), assets: assets,
                                  storedLocations: try storedLocations(of: temporary.home),
                                  storedValues: try storedValues(of: temporary.home),
                                  dataFile: DataFileBytes(try dataFile(of: temporary.home)))
            try body(fixture)
            #expect(try dataFile(of: temporary.home) == fixture.dataFile.bytes, "the guarded connection wrote the data file")
        }
    }

    func run(_ sql: String, view: LocationView?) throws -> Frame {
        try connection.run(sql, view: view, assets: assets).frame
    }

    /// Adds a fix through a connection of its own, as an import would.
    func insert(_ fix: LocationRecord) throws {
        _ = try DataWriter(home: temporary.home).insertLocations([fix])
        dataFile.bytes = try Self.dataFile(of: temporary.home)
    }

    /// Adds a photo through a connection of its own, as an import would.
    func insert(_ photo: PhotoRow) throws {
        _ = try DataWriter(home: temporary.home).insertPhotos([photo])
        dataFile.bytes = try Self.dataFile(of: temporary.home)
    }

    /// The data database's file and its write-ahead log (nil when absent).
    static func dataFile(of home: EscrowHome) throws -> [Data?] {
        let path = home.dataDatabasePath
        return try [path, path + "-wal"].map { file in
            FileManager.default.fileExists(atPath: file) ? try Data(contentsOf: URL(fileURLWithPath: file)) : nil
        }
    }

    static func storedLocations(of home: EscrowHome) throws -> [(latitude: Double, longitude: Double)] {
        let database = try Database(path: home.dataDatabasePath, mode: .readOnly)
        let statement = try database.prepare("SELECT latitude, longitude FROM Location ORDER BY id")
        var points: [(latitude: Double, longitude: Double)] = []
        while try statement.step() { points.append((statement.double(0), statement.double(1))) }
        return points
    }

    static func storedValues(of home: EscrowHome) throws -> [Double] {
        let database = try Database(path: home.dataDatabasePath, mode: .readOnly)
        let statement = try database.prepare("SELECT latitude, longitude FROM Location UNION ALL SELECT latitude, longitude FROM Photos")
        var values: [Double] = []
        while try statement.step() {
            for column in Int32(0)..<2 where !statement.isNull(column) { values.append(statement.double(column)) }
        }
        return values
    }

    /// The stored points whose masks are the view's values: Location's (given, or as stored at
    /// the start) and Photos'.
    func maskedValues(by view: LocationView, stored: [(latitude: Double, longitude: Double)]? = nil) -> [Double] {
        let photoPoints = Self.storedPhotoPoints.compactMap { point in
            point.latitude.flatMap { latitude in point.longitude.map { (latitude: latitude, longitude: $0) } }
        }
        return ((stored ?? storedLocations) + photoPoints).flatMap { point in
            let masked = view.mask(point.latitude, point.longitude)
            return [masked.latitude, masked.longitude]
        }
    }

    /// Checks every number in `frame` (also those written in text) is a masked coordinate or a
    /// whole number, none is within 0.01 of a stored coordinate, and a non-empty frame holds at
    /// least one masked coordinate.
    func expectOnlyMasked(_ frame: Frame, by view: LocationView, sql: String,
                          stored: [(latitude: Double, longitude: Double)]? = nil) {
        let masked = maskedValues(by: view, stored: stored)
        let storedNow = storedValues + (stored ?? []).flatMap { [$0.latitude, $0.longitude] }
        var sawMasked = false
        for number in Self.numbers(in: frame) {
            #expect(!storedNow.contains { abs($0 - number) < 0.01 }, "\(number) is a stored coordinate: \(sql)")
            let isMasked = masked.contains { abs($0 - number) < 1e-9 }
            sawMasked = sawMasked || isMasked
            #expect(isMasked || number == number.rounded(), "\(number) is not a masked coordinate: \(sql)")
        }
        #expect(frame.rowCount == 0 || sawMasked, "no masked coordinate in the result: \(sql)")
    }

    /// Checks the first two columns of `frame` are `view`'s masks of `points`, row by row.
    func expectPoints(_ frame: Frame, masked view: LocationView, of points: [(latitude: Double, longitude: Double)]) {
        #expect(frame.rowCount == points.count)
        for (row, point) in points.enumerated() where row < frame.rowCount {
            let masked = view.mask(point.latitude, point.longitude)
            #expect(frame.columns[0].double(at: row) == masked.latitude, "row \(row) of view \(view.id)")
            #expect(frame.columns[1].double(at: row) == masked.longitude, "row \(row) of view \(view.id)")
            #expect(frame.columns[2].double(at: row) == view.horizontalAccuracy, "row \(row) of view \(view.id)")
        }
    }

    /// Checks no number in `frame` is one of `values` (another view's masked coordinates).
    func expectNone(of values: [Double], in frame: Frame) {
        for number in Self.numbers(in: frame) {
            #expect(!values.contains { abs($0 - number) < 1e-9 }, "\(number) is another view's value")
        }
    }

    /// Every number in `frame`: the numeric cells, and the numbers written inside text cells
    /// (JSON, printf, group_concat output). Bytes (asset contents) are not read.
    static func numbers(in frame: Frame) -> [Double] {
        var numbers: [Double] = []
        for column in frame.columns {
            for row in 0..<frame.rowCount {
                switch column.value(at: row) {
                case .int64(let value)?: numbers.append(Double(value))
                case .double(let value)?: numbers.append(value)
                case .string(let text)?: numbers += Self.numbers(inText: text)
                default: break
                }
            }
        }
        return numbers
    }

    /// The numbers written in `text`: runs of digits with at most one point, a minus sign
    /// starting a new one. A run with two points is recorded as an issue, never skipped.
    static func numbers(inText text: String) -> [Double] {
        var numbers: [Double] = []
        var token = ""
        func finish() {
            defer { token = "" }
            guard token.contains(where: \.isNumber) else { return }
            if let number = Double(token.hasSuffix(".") ? String(token.dropLast()) : token) {
                numbers.append(number)
            } else {
                Issue.record("cannot read the number \(token) in \(text)")
            }
        }
        for character in text {
            if character.isASCII, character.isNumber || character == "." {
                token.append(character)
            } else {
                finish()
                if character == "-" { token = "-" }
            }
        }
        finish()
        return numbers
    }
}

/// The data file's bytes, as the test last wrote them (the guarded connection never writes).
private final class DataFileBytes {
    var bytes: [Data?]

    init(_ bytes: [Data?]) {
        self.bytes = bytes
    }
}
