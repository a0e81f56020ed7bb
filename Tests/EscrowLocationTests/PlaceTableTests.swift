import EscrowLocation
import EscrowTestSupport
import Foundation
import Testing

/// The bundled GeoNames place table: known cities, regions and countries; the grid index against
/// brute-force scans of the whole table (nearest city, spaced nearest places) over thousands of
/// random points, the poles and the antimeridian; the population estimate and the radius search;
/// hostile bytes rejected with an error, never a crash.
@Suite struct PlaceTableTests {
    static func table() throws -> PlaceTable { try PlaceTable.bundled() }

    static func point(_ latitude: Double, _ longitude: Double) throws -> GeoPoint {
        try #require(GeoPoint(latitude: latitude, longitude: longitude))
    }

    /// Uniform over the sphere, then the poles, the antimeridian and the seas around it.
    static func points(_ count: Int, seed: UInt64) -> [GeoPoint] {
        var random = SplitMix64(seed: seed)
        var points = (0..<count).compactMap { _ in
            GeoPoint(latitude: asin(2 * random.nextUnit() - 1) * 180 / .pi, longitude: 360 * random.nextUnit() - 180)
        }
        points += [(90, 0), (-90, 0), (89.99, 179.99), (-89.99, -179.99), (0, 180), (0, -179.9999), (65.5, 179.999),
                   (-16.5, -179.999), (-17.0, 179.5), (64.7, -177.5), (51.9, 179.9), (-45, 170)]
            .compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) }
        return points
    }

    // MARK: The bundled table

    @Test func theBundledTableHoldsEveryPlaceAndIsDecodedOnce() throws {
        let table = try Self.table()
        #expect(table.count == 170_391)
        #expect(try PlaceTable.bundled() === table)
        let cities = (0..<table.count).filter { table[$0].population >= PlaceTable.cityPopulation }
        #expect(cities.count == 34_024)
        #expect(cities.allSatisfy { table[$0].name != nil })
        #expect((0..<table.count).allSatisfy { table[$0].population >= PlaceTable.cityPopulation || table[$0].name == nil })
    }

    @Test func theBundledTableIsTheCommittedFile() throws {
        let file = BuiltExecutable.packageRoot.appending(path: "Sources/EscrowLocation/Places/places.bin")
        let fromFile = try PlaceTable(bytes: [UInt8](Data(contentsOf: file)))
        let bundled = try Self.table()
        #expect(fromFile.count == bundled.count)
        for index in stride(from: 0, to: bundled.count, by: 997) { #expect(fromFile[index] == bundled[index]) }
    }

    // MARK: Aggregation

    struct KnownPoint: Sendable, CustomTestStringConvertible {
        let latitude: Double
        let longitude: Double
        let city: String
        var testDescription: String { "\(city) from \(latitude), \(longitude)" }
    }

    /// Points near (within about 3 km of) each city's own coordinates, as GeoNames gives them: the
    /// boroughs GeoNames also lists as cities of 15,000+ (Paris 01 Louvre, Times Square) are
    /// nearer from a landmark, so these are the city's own centre, a little off.
    static let knownPoints: [KnownPoint] = [
        KnownPoint(latitude: 48.8530, longitude: 2.3480, city: "Paris, FR"),
        KnownPoint(latitude: 35.6900, longitude: 139.6920, city: "Tokyo, JP"),
        KnownPoint(latitude: 40.7128, longitude: -74.0060, city: "New York City, US"),
        KnownPoint(latitude: -23.5480, longitude: -46.6370, city: "São Paulo, BR"),
        KnownPoint(latitude: -33.8688, longitude: 151.2093, city: "Sydney, AU"),
        KnownPoint(latitude: 64.1466, longitude: -21.9426, city: "Reykjavík, IS"),
        KnownPoint(latitude: -33.9249, longitude: 18.4241, city: "Cape Town, ZA"),
        KnownPoint(latitude: -1.2864, longitude: 36.8172, city: "Nairobi, KE"),
        KnownPoint(latitude: 61.2176, longitude: -149.8997, city: "Anchorage, US"),
        // Fiji's capital, 1.6° west of the antimeridian.
        KnownPoint(latitude: -18.1416, longitude: 178.4419, city: "Suva, FJ"),
        KnownPoint(latitude: -54.8019, longitude: -68.3030, city: "Ushuaia, AR"),
        // Longyearbyen (2,368 people) has no city of its own: the nearest is Alta, 945 km south.
        KnownPoint(latitude: 78.2232, longitude: 15.6267, city: "Alta, NO"),
        // The village of Sillery (1,702 people), 10.6 km south-east of Reims.
        KnownPoint(latitude: 49.19822, longitude: 4.13244, city: "Reims, FR"),
        // Across the antimeridian: Anadyr lies at 177.5° E, Labasa at 179.4° E.
        KnownPoint(latitude: 65.0, longitude: -179.9, city: "Anadyr, RU"),
        KnownPoint(latitude: -16.7, longitude: 179.9, city: "Labasa, FJ"),
    ]

    @Test(arguments: knownPoints)
    func cityAggregationGivesTheNearestCity(_ known: KnownPoint) throws {
        let table = try Self.table()
        let point = try Self.point(known.latitude, known.longitude)
        let city = try #require(table.aggregate(point, level: .city))
        #expect(city.label == known.city)
        let nearest = try #require(table.nearestCity(to: point))
        #expect(city.point == nearest.point && city.population == nearest.population)
        #expect(nearest.population >= PlaceTable.cityPopulation)
    }

    @Test func regionAndCountryAggregationGiveCentroidsAndTotals() throws {
        let table = try Self.table()
        let paris = try Self.point(48.8530, 2.3480)
        let region = try #require(table.aggregate(paris, level: .region))
        #expect(region.label == "region FR.11")
        #expect(region.population == 15_124_835)
        #expect(GreatCircle.distance(region.point, paris) < 30_000)
        let france = try #require(table.aggregate(paris, level: .country))
        #expect(france.label == "France")
        #expect(france.population == 58_699_201)
        #expect(GreatCircle.distance(france.point, try Self.point(47.1391, 2.8117)) < 1_000)

        let reykjavik = try Self.point(64.1466, -21.9426)
        #expect(table.aggregate(reykjavik, level: .region)?.label == "region IS.39")
        #expect(table.aggregate(reykjavik, level: .region)?.population == 222_829)
        #expect(table.aggregate(reykjavik, level: .country)?.label == "Iceland")

        // Fiji straddles the antimeridian: averaging longitudes would put its centroid near 0°;
        // averaging unit vectors puts it among its islands.
        let fiji = try #require(table.aggregate(try Self.point(-18.1416, 178.4419), level: .country))
        #expect(fiji.label == "Fiji")
        #expect(fiji.population == 390_358)
        #expect(GreatCircle.distance(fiji.point, try Self.point(-17.8098, 178.2088)) < 1_000)
        #expect(table.aggregate(try Self.point(-16.7, 179.9), level: .country)?.label == "Fiji")
        #expect(table.aggregate(try Self.point(65.0, -179.9), level: .country)?.label == "Russia")
    }

    // MARK: The index against brute force

    @Test func nearestCityAgreesWithABruteForceScan() throws {
        let table = try Self.table()
        let cities = (0..<table.count).map { table[$0] }.filter { $0.population >= PlaceTable.cityPopulation }
        // 600 points (the poles and the seas around the antimeridian among them): a brute-force
        // scan of 34,000 cities each, which a debug build runs in a few seconds.
        for point in Self.points(600, seed: 15) {
            var best: (distance: Double, place: Place)?
            for city in cities {
                let distance = GreatCircle.distance(point, city.point)
                if best.map({ distance < $0.distance }) ?? true { best = (distance, city) }
            }
            #expect(table.nearestCity(to: point) == best?.place, "\(point)")
        }
    }

    @Test(arguments: [(5, 0.0), (10, 5_000.0), (8, 50_000.0), (3, 400_000.0)])
    func nearestPlacesAgreeWithABruteForceScanAndAreSpaced(_ count: Int, _ minimum: Double) throws {
        let table = try Self.table()
        let populated = (0..<table.count).map { table[$0] }.filter { $0.population > 0 }
        var points = Self.points(10, seed: 7)
        points += try [Self.point(48.8530, 2.3480), Self.point(78.2232, 15.6267), Self.point(-18.1416, 178.4419)]
        for point in points {
            let found = table.nearestPlaces(to: point, count: count, apartFrom: minimum)
            #expect(found.count == count, "\(point)")
            // Greedy over every populated place by distance (table order among equals); the
            // places beyond the last one found cannot change the first `count` kept.
            let reach = found.last.map { GreatCircle.distance(point, $0.point) } ?? .infinity
            let sorted = populated.enumerated()
                .map { (distance: GreatCircle.distance(point, $0.element.point), index: $0.offset, place: $0.element) }
                .filter { $0.distance >= minimum && $0.distance <= reach }
                .sorted { ($0.distance, $0.index) < ($1.distance, $1.index) }
            var expected: [Place] = []
            for candidate in sorted where expected.count < count {
                if expected.allSatisfy({ GreatCircle.distance($0.point, candidate.place.point) >= minimum }) {
                    expected.append(candidate.place)
                }
            }
            #expect(found == expected, "\(point)")
            for (offset, place) in found.enumerated() {
                #expect(GreatCircle.distance(point, place.point) >= minimum)
                for other in found[(offset + 1)...] { #expect(GreatCircle.distance(place.point, other.point) >= minimum) }
            }
        }
    }

    // MARK: People

    @Test func peopleGrowWithTheRadius() throws {
        let table = try Self.table()
        var points = Self.points(60, seed: 3)
        points += Self.knownPoints.compactMap { GeoPoint(latitude: $0.latitude, longitude: $0.longitude) }
        let radii = [0.0, 100, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 300_000, 1_000_000]
        for point in points {
            let estimates = radii.map { table.people(within: $0, of: point) }
            #expect(estimates[0] == 0)
            #expect(zip(estimates, estimates.dropFirst()).allSatisfy { $0 <= $1 * (1 + 1e-12) }, "\(point): \(estimates)")
        }
    }

    @Test func peopleAroundACityAreAboutItsPopulationAndNoneInEmptyPlaces() throws {
        let table = try Self.table()
        // Reykjavík (118,918) spreads over a disc of 4.4 km; within 6 km of its centre lie it and
        // parts of its neighbours (Kópavogur, Seltjarnarnes): more than it, far less than Iceland.
        let reykjavik = try #require(table.nearestCity(to: try Self.point(64.1466, -21.9426)))
        let aroundReykjavik = table.people(within: 6_000, of: reykjavik.point)
        #expect(aroundReykjavik >= Double(reykjavik.population) && aroundReykjavik < 250_000)
        // Nairobi (4.4 million, a disc of 26 km): within 40 km, it and its satellite towns.
        let nairobi = try #require(table.nearestCity(to: try Self.point(-1.2864, 36.8172)))
        let aroundNairobi = table.people(within: 40_000, of: nairobi.point)
        #expect(aroundNairobi >= Double(nairobi.population) && aroundNairobi < 2 * Double(nairobi.population))
        // A tiny disc at the centre holds the city's density, 2,000 per km².
        let density = table.people(within: 100, of: nairobi.point) / (Double.pi * 0.01)
        #expect(density >= 2_000 && density < 4_000)

        for (latitude, longitude) in [(0.0, -140.0), (-30.0, -120.0), (-85.0, 0.0), (-90.0, 0.0), (45.0, -160.0)] {
            #expect(table.people(within: 100_000, of: try Self.point(latitude, longitude)) < 1)
        }
    }

    @Test func theRadiusHoldingSomePeopleIsTheSmallestWithinTolerance() throws {
        let table = try Self.table()
        var cases: [(GeoPoint, Double)] = []
        for known in Self.knownPoints {
            let point = try Self.point(known.latitude, known.longitude)
            cases += [(point, 1_000), (point, 50_000), (point, 1_000_000)]
        }
        for point in Self.points(30, seed: 11) { cases.append((point, 10_000)) }
        for (point, people) in cases {
            guard let radius = table.radius(holding: people, around: point, from: 200, upTo: 2_000_000) else {
                #expect(table.people(within: 2_000_000, of: point) < people, "\(point)")
                continue
            }
            #expect(radius >= 200 && radius <= 2_000_000)
            #expect(table.people(within: radius, of: point) >= people, "\(point)")
            #expect(radius == 200 || table.people(within: radius * 0.99, of: point) < people, "\(point): \(radius) m")
        }
        let pacific = try Self.point(0, -140)
        #expect(table.radius(holding: 1_000, around: pacific, from: 0, upTo: 100_000) == nil)
        #expect(table.radius(holding: 1, around: pacific, from: 10, upTo: 5) == nil)
        #expect(table.radius(holding: 0, around: pacific, from: 10, upTo: 50) == 10)
    }

    /// Radii and spacings that are no number, infinite or negative give an answer, never a trap.
    @Test func oddArgumentsGiveAnswersNotCrashes() throws {
        let table = try Self.table()
        let paris = try Self.point(48.8530, 2.3480)
        #expect(table.people(within: .nan, of: paris) == 0)
        #expect(table.people(within: -5, of: paris) == 0)
        #expect(table.people(within: .infinity, of: paris) > 1e9)
        #expect(table.radius(holding: 1_000, around: paris, from: 0, upTo: .infinity) == nil)
        #expect(table.radius(holding: 1_000, around: paris, from: .nan, upTo: 1_000) == nil)
        #expect(table.radius(holding: .nan, around: paris, from: 0, upTo: 1_000) == nil)
        #expect(table.radius(holding: 1_000, around: paris, from: -50, upTo: 100_000).map { $0 >= 0 } == true)
        #expect(table.nearestPlaces(to: paris, count: 3, apartFrom: .nan).isEmpty)
        #expect(table.nearestPlaces(to: paris, count: 3, apartFrom: .infinity).isEmpty)
        #expect(table.nearestPlaces(to: paris, count: -1, apartFrom: 10).isEmpty)
        #expect(table.nearestPlaces(to: paris, count: 3, apartFrom: -10).count == 3)
        // Two places at most lie 20,000 km apart on a sphere whose half circumference is 20,015 km.
        #expect(table.nearestPlaces(to: paris, count: 3, apartFrom: 20_000_000).count <= 2)
    }

    // MARK: Hostile bytes

    /// A place table written field by field, as scripts/make-places.py writes one, with the CRC-32
    /// recomputed: so a test can put a bad value behind a good checksum.
    struct TableBytes {
        var magic = Array("EPLT".utf8)
        var version = 1
        var reserved = 0
        var countries: [(code: String, name: String)] = [("FJ", "Fiji"), ("FR", "France")]
        var regions: [(country: Int, admin1: String)] = [(0, "01"), (1, "11"), (1, "")]
        var places: [(latitude: Int, longitude: Int, population: Int, region: Int)] = [
            (488_534, 23_488, 2_138_551, 1), (491_982, 41_324, 1_702, 2), (-181_368, 1_784_253, 77_366, 0),
            (-167_000, -1_799_990, 0, 0),
        ]
        var names: [[UInt8]] = [Array("Paris".utf8), Array("Suva".utf8)]
        var threshold = 15_000
        var placeCount: Int?
        var nameBytes: Int?
        var trailing: [UInt8] = []

        var bytes: [UInt8] {
            var countrySection: [UInt8] = [], regionSection: [UInt8] = [], placeSection: [UInt8] = [], nameSection: [UInt8] = []
            for country in countries {
                countrySection += Array(country.code.utf8) + [UInt8(truncatingIfNeeded: country.name.utf8.count)] + Array(country.name.utf8)
            }
            for region in regions {
                regionSection += [UInt8(truncatingIfNeeded: region.country), UInt8(truncatingIfNeeded: region.admin1.utf8.count)]
                regionSection += Array(region.admin1.utf8)
            }
            for place in places {
                placeSection += Self.little(place.latitude, 3) + Self.little(place.longitude, 3) + Self.little(place.population, 4)
                placeSection += Self.little(place.region, 2)
            }
            for name in names { nameSection += [UInt8(truncatingIfNeeded: name.count)] + name }
            var all = magic + Self.little(version, 2) + Self.little(countries.count, 2) + Self.little(regions.count, 2)
            all += Self.little(reserved, 2) + Self.little(placeCount ?? places.count, 4) + Self.little(threshold, 4)
            all += Self.little(nameBytes ?? nameSection.count, 4)
            all += countrySection + regionSection + placeSection + nameSection + trailing
            return all + Self.little(Int(Self.crc32(all)), 4)
        }

        static func little(_ value: Int, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }

        static func crc32(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            }
            return crc ^ 0xFFFF_FFFF
        }

        func with(_ change: (inout TableBytes) -> Void) -> [UInt8] {
            var copy = self
            change(&copy)
            return copy.bytes
        }
    }

    @Test func aSmallTableWrittenByHandDecodesAndAnswers() throws {
        let table = try PlaceTable(bytes: TableBytes().bytes)
        #expect(table.count == 4)
        #expect(table[0] == Place(point: try Self.point(48.8534, 2.3488), population: 2_138_551, country: "FR", region: "FR.11", name: "Paris"))
        #expect(table[1].region == "FR" && table[1].name == nil)
        #expect(abs(table[3].point.longitude + 179.999) < 1e-9 && table[3].population == 0)
        #expect(table.aggregate(try Self.point(-16.7, -179.9), level: .city)?.label == "Suva, FJ")
        #expect(table.aggregate(try Self.point(49, 3), level: .country)?.population == 2_140_253)
        #expect(table.nearestPlaces(to: try Self.point(48.85, 2.35), count: 5, apartFrom: 0).count == 3)

        let empty = try PlaceTable(bytes: TableBytes(countries: [], regions: [], places: [], names: []).bytes)
        #expect(empty.count == 0)
        #expect(empty.nearestCity(to: try Self.point(0, 0)) == nil)
        #expect(empty.aggregate(try Self.point(0, 0), level: .region) == nil)
        #expect(empty.people(within: 1e6, of: try Self.point(0, 0)) == 0)
        #expect(empty.nearestPlaces(to: try Self.point(0, 0), count: 3, apartFrom: 10).isEmpty)
    }

    struct HostileBytes: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        /// The exact error, where the test can know it.
        let expected: PlaceTableError?
        var testDescription: String { name }
    }

    static let committed: [UInt8] = {
        let file = BuiltExecutable.packageRoot.appending(path: "Sources/EscrowLocation/Places/places.bin")
        return (try? Data(contentsOf: file)).map { [UInt8]($0) } ?? []
    }()

    static let hostile: [HostileBytes] = {
        let good = TableBytes()
        var flipped = committed
        if !flipped.isEmpty { flipped[flipped.count / 2] ^= 0x10 }
        return [
            HostileBytes(name: "no bytes", bytes: [], expected: .truncated(section: "header", needed: 28, available: 0)),
            HostileBytes(name: "three bytes", bytes: Array("EPL".utf8), expected: .truncated(section: "header", needed: 28, available: 3)),
            HostileBytes(name: "a GIF", bytes: Array("GIF89a, and then some more bytes to make it long".utf8), expected: .notAPlaceTable),
            HostileBytes(name: "the magic alone", bytes: Array("EPLT".utf8), expected: .truncated(section: "header", needed: 28, available: 4)),
            HostileBytes(name: "a header cut short", bytes: Array(good.bytes.prefix(20)), expected: .truncated(section: "header", needed: 28, available: 20)),
            HostileBytes(name: "version 2", bytes: good.with { $0.version = 2 }, expected: .unsupportedVersion(2)),
            HostileBytes(name: "version 0", bytes: good.with { $0.version = 0 }, expected: .unsupportedVersion(0)),
            HostileBytes(name: "version 65535", bytes: good.with { $0.version = 0xFFFF }, expected: .unsupportedVersion(0xFFFF)),
            HostileBytes(name: "the bundled table cut in half", bytes: Array(committed.prefix(committed.count / 2)), expected: nil),
            HostileBytes(name: "the bundled table less its last byte", bytes: Array(committed.dropLast()), expected: nil),
            HostileBytes(name: "the bundled table with one bit flipped", bytes: flipped, expected: nil),
            HostileBytes(name: "the bundled table with a byte more", bytes: committed + [0], expected: nil),
            HostileBytes(name: "a reserved field set", bytes: good.with { $0.reserved = 1 }, expected: nil),
            HostileBytes(name: "2^32 - 1 places", bytes: good.with { $0.placeCount = 0xFFFF_FFFF }, expected: nil),
            HostileBytes(name: "one place more than written", bytes: good.with { $0.placeCount = 5 }, expected: nil),
            HostileBytes(name: "a region past the table", bytes: good.with { $0.places[1].region = 3 }, expected: nil),
            HostileBytes(name: "a region's country past the table", bytes: good.with { $0.regions[2].country = 2 }, expected: nil),
            HostileBytes(name: "a latitude beyond the pole", bytes: good.with { $0.places[0].latitude = 900_001 }, expected: nil),
            HostileBytes(name: "longitude 180 (written -180)", bytes: good.with { $0.places[0].longitude = 1_800_000 }, expected: nil),
            HostileBytes(name: "a name not UTF-8", bytes: good.with { $0.names[0] = [0xFF, 0xFE, 0x41] }, expected: nil),
            HostileBytes(name: "a name missing", bytes: good.with { $0.names.removeLast() }, expected: nil),
            HostileBytes(name: "a name too many", bytes: good.with { $0.names.append(Array("Nadi".utf8)) }, expected: nil),
            HostileBytes(name: "a name length past the end", bytes: good.with { $0.names[1] = Array("Suva".utf8); $0.nameBytes = 40 }, expected: nil),
            HostileBytes(name: "bytes after the names", bytes: good.with { $0.trailing = [1, 2, 3] }, expected: nil),
            HostileBytes(name: "a country code in lower case", bytes: good.with { $0.countries[0].code = "fj" }, expected: nil),
            HostileBytes(name: "a country name longer than its length byte", bytes: good.with { $0.countries[1].name = String(repeating: "é", count: 200) }, expected: nil),
            HostileBytes(name: "names from another population", bytes: good.with { $0.threshold = 10_000 }, expected: nil),
        ]
    }()

    @Test(arguments: hostile)
    func hostileBytesAreRejectedWithAnError(_ input: HostileBytes) {
        #expect(!input.bytes.isEmpty || input.name == "no bytes", "the committed places.bin could not be read")
        let error = #expect(throws: PlaceTableError.self) { try PlaceTable(bytes: input.bytes) }
        if let expected = input.expected { #expect(error == expected) }
        #expect(error.map { !$0.description.isEmpty } ?? false)
    }
}
