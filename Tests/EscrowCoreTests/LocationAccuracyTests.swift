import EscrowCore
import Testing

/// What an app or the individual may write as a location accuracy, and what is refused.
@Suite struct LocationAccuracyTests {
    @Test(arguments: [
        ("exact", LocationAccuracy.exact), ("City", .city), (" region ", .region), ("COUNTRY", .country),
        ("100m", .radius(meters: 100)), ("1km", .radius(meters: 1000)), ("2.5km", .radius(meters: 2500)),
        ("750 m", .radius(meters: 750)), ("100km", .radius(meters: 100_000)), ("0.1km", .radius(meters: 100)),
        ("1000M", .radius(meters: 1000)),
    ])
    func readsWhatPeopleWrite(_ text: String, _ expected: LocationAccuracy) throws {
        #expect(try LocationAccuracy(parsing: text) == expected)
        // What it prints reads back as the same accuracy.
        #expect(try LocationAccuracy(parsing: expected.description) == expected)
    }

    @Test(arguments: [
        "", "km", "m", "-1km", "+1km", "1e3m", "nan m", "infm", "1..5km", "1,5km", "0x10km", "１km", "1 k m", "10 miles",
        "exactly", "city\u{0}", "city; DROP TABLE Flow", String(repeating: "9", count: 40) + "m", "1km\u{202E}",
    ])
    func refusesWhatIsNoAccuracy(_ text: String) {
        #expect(throws: LocationAccuracyError.unknown(text)) { try LocationAccuracy(parsing: text) }
    }

    @Test(arguments: ["99m", "0m", "0.05km", "100.1km", "101km", "999999km"])
    func refusesRadiiOutOfRange(_ text: String) {
        #expect(throws: LocationAccuracyError.radiusOutOfRange(text)) { try LocationAccuracy(parsing: text) }
    }

    @Test func errorsSayWhatIsAccepted() {
        let unknown = LocationAccuracyError.unknown("\u{1B}[2Jx").description
        #expect(unknown.contains("exact, city, region, country") && unknown.contains("500m") && !unknown.contains("\u{1B}"))
        #expect(LocationAccuracyError.radiusOutOfRange("5m").description.contains("from 100 m to 100 km"))
    }

    /// From finest to coarsest; the coarser of an app's ask and the individual's choice applies.
    @Test func coarserIsWhatApplies() {
        let order: [LocationAccuracy] = [.exact, .radius(meters: 100), .radius(meters: 1000), .radius(meters: 100_000), .city, .region, .country]
        for (index, finer) in order.enumerated() {
            for coarser in order[(index + 1)...] {
                #expect(coarser.isCoarser(than: finer))
                #expect(!finer.isCoarser(than: coarser))
                #expect(LocationAccuracy.coarser(finer, coarser) == coarser)
                #expect(LocationAccuracy.coarser(coarser, finer) == coarser)
            }
        }
        #expect(LocationAccuracy.radius(meters: 1500).plainWords == "a point within 1.5 km of your location")
        #expect(LocationAccuracy.exact.plainWords == "your exact location")
    }
}
