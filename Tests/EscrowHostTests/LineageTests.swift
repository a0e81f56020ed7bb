import EscrowCore
import EscrowHost
import EscrowTestSupport
import Logging
import Testing

/// Column-level lineage: exactly the (table, column) pairs a query reads.
@Suite struct LineageTests {
    static let cases: [(sql: String, expected: [String])] = [
        ("SELECT givenName, familyName, phoneNumbers FROM Contact",
         ["Contact.familyName", "Contact.givenName", "Contact.phoneNumbers"]),
        ("SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
         ["Location.latitude", "Location.longitude", "Location.timestamp"]),
        ("SELECT asset FROM Photos WHERE mediaType = 'image' ORDER BY creationDate DESC",
         ["Photos.asset", "Photos.creationDate", "Photos.mediaType"]),
        ("SELECT * FROM Location",
         ["Location.altitude", "Location.course", "Location.floor", "Location.horizontalAccuracy", "Location.id",
          "Location.latitude", "Location.longitude", "Location.source", "Location.speed", "Location.timestamp",
          "Location.verticalAccuracy"]),
        ("SELECT count(*) FROM Contact", ["Contact.*"]),
        // count(*) is a table-level read only when no column of the table is read (SQLite
        // reports the table read once, through the columns when there are any).
        ("SELECT count(*), max(timestamp) FROM Location", ["Location.timestamp"]),
        ("SELECT mediaType, count(*) FROM Photos GROUP BY mediaType", ["Photos.mediaType"]),
        ("SELECT (SELECT count(*) FROM Contact) AS contacts, max(timestamp) FROM Location", ["Contact.*", "Location.timestamp"]),
        ("SELECT avg(latitude) FROM Location WHERE source = 'gpx:trkpt'", ["Location.latitude", "Location.source"]),
        ("SELECT c.givenName, p.asset FROM Contact c JOIN Photos p ON p.originalFilename LIKE '%' || c.givenName || '%'",
         ["Contact.givenName", "Photos.asset", "Photos.originalFilename"]),
        ("SELECT givenName FROM Contact WHERE id IN (SELECT id FROM Contact WHERE birthday IS NOT NULL)",
         ["Contact.birthday", "Contact.givenName", "Contact.id"]),
        ("SELECT (SELECT max(timestamp) FROM Location) AS last, count(*) FROM Photos",
         ["Location.timestamp", "Photos.*"]),
        ("WITH recent AS (SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 10) SELECT avg(latitude) FROM recent",
         ["Location.latitude", "Location.longitude", "Location.timestamp"]),
        ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT i FROM n", []),
        ("SELECT c.givenName, p.value ->> 'value' AS phone FROM Contact c, json_each(c.phoneNumbers) p",
         ["Contact.givenName", "Contact.phoneNumbers"]),
        ("SELECT g.value AS grp, count(*) FROM Contact, json_each(Contact.groups) g GROUP BY g.value",
         ["Contact.groups"]),
        ("SELECT json_extract(emailAddresses, '$[0].value') FROM Contact", ["Contact.emailAddresses"]),
        ("SELECT strftime('%Y-%m', creationDate) AS month, count(*) FROM Photos GROUP BY month",
         ["Photos.creationDate"]),
        ("SELECT givenName FROM Contact UNION SELECT source FROM Location", ["Contact.givenName", "Location.source"]),
        ("SELECT 1 + 1", []),
        ("VALUES (1, 'a')", []),
        ("SELECT row_number() OVER (ORDER BY timestamp) AS n, latitude FROM Location",
         ["Location.latitude", "Location.timestamp"]),
    ]

    @Test(arguments: LineageTests.cases)
    func lineage(sql: String, expected: [String]) async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: .init(label: "test"))
            let lineage = try host.lineage(of: sql)
            #expect(lineage.sorted.map(\.description) == expected)
            // The query also runs.
            _ = try await host.runApproving(app: "org.example.lineage", purpose: "test", access: sql, compute: "identity")
        }
    }
}
