import Foundation
import Testing

@Suite("escrow run: the paper's dataflows")
struct RunCommandTests {
    /// A new home with the sample contacts, track and photos imported through the CLI.
    static func importedHome() async throws -> ScratchHome {
        let home = ScratchHome()
        for arguments in [["init"], ["import", "contacts", SampleData.contacts],
                          ["import", "locations", SampleData.track], ["import", "photos", SampleData.photos]] {
            let outcome = try await EscrowProcess.run(["--home", home.path] + arguments)
            guard outcome.succeeded else {
                home.remove()
                throw SetupFailed(outcome: outcome)
            }
        }
        return home
    }

    struct SetupFailed: Error, CustomStringConvertible {
        let outcome: EscrowProcess.Outcome
        var description: String { "setting up the home failed: \(outcome)" }
    }

    @Test("contacts.tuples: one row per contact and phone number")
    func contactTuples() async throws {
        let home = try await Self.importedHome()
        defer { home.remove() }

        let outcome = try await home.runApproved(sql: "SELECT givenName, familyName, phoneNumbers FROM Contact", compute: "contacts.tuples")
        #expect(outcome.succeeded, "\(outcome)")
        let frame = try #require(FrameJSON(outcome.standardOutput), "\(outcome)")
        #expect(frame.columns == ["givenName", "familyName", "phoneNumber"])
        #expect(frame.rows.count == (try SampleData.phoneNumberCount()))
        let tuples = frame.rows.map { row in row.map { $0 as? String ?? "NULL" } }
        #expect(tuples.contains(["Ana", "Rivera", "(555) 555-0111"]))
        #expect(tuples.contains(["Ana", "Rivera", "(555) 555-0112"]))
        #expect(tuples.allSatisfy { $0[2] != "NULL" }, "every tuple has a phone number")
    }

    @Test("location.region: a region around the latest point, not the point")
    func locationRegion() async throws {
        let home = try await Self.importedHome()
        defer { home.remove() }
        let last = try #require(try SampleData.lastTrackPoint())

        let outcome = try await home.runApproved(sql: "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
                                   compute: "location.region")
        #expect(outcome.succeeded, "\(outcome)")
        let frame = try #require(FrameJSON(outcome.standardOutput), "\(outcome)")
        #expect(!frame.columns.contains("latitude") && !frame.columns.contains("longitude"))
        let region = try #require(frame.onlyRow, "\(outcome)")
        let south = try #require(region["south"] as? Double)
        let north = try #require(region["north"] as? Double)
        let west = try #require(region["west"] as? Double)
        let east = try #require(region["east"] as? Double)
        #expect(south < north && west < east)
        #expect((south...north).contains(last.latitude), "\(last) in \(region)")
        #expect((west...east).contains(last.longitude), "\(last) in \(region)")
    }

    @Test("identity over image assets: base64 bytes equal the original files")
    func imageAssets() async throws {
        let home = try await Self.importedHome()
        defer { home.remove() }

        let outcome = try await home.runApproved(sql: "SELECT asset FROM Photos WHERE mediaType = 'image' ORDER BY creationDate DESC",
                                   compute: "identity")
        #expect(outcome.succeeded, "\(outcome)")
        let frame = try #require(FrameJSON(outcome.standardOutput), "\(outcome)")
        #expect(frame.columns == ["asset"])
        let assets = frame.column("asset").compactMap { ($0 as? String).flatMap { Data(base64Encoded: $0) } }
        #expect(assets.count == frame.rows.count, "every asset is a base64 string")
        let originals = try SampleData.imageFiles()
        #expect(assets.count == originals.count)
        #expect(Set(assets) == Set(originals.values))
    }

    @Test("photos.summary: counts by month and media type")
    func photoSummary() async throws {
        let home = try await Self.importedHome()
        defer { home.remove() }

        let outcome = try await home.runApproved(sql: "SELECT mediaType, creationDate FROM Photos", compute: "photos.summary")
        #expect(outcome.succeeded, "\(outcome)")
        let frame = try #require(FrameJSON(outcome.standardOutput), "\(outcome)")
        #expect(frame.columns == ["month", "mediaType", "count"])
        let counts = frame.column("count").compactMap { $0 as? Int }
        #expect(counts.count == frame.rows.count)
        #expect(counts.reduce(0, +) == (try SampleData.imageFiles().count))
        #expect(frame.column("mediaType").allSatisfy { $0 as? String == "image" })
        #expect(frame.column("month").allSatisfy { ($0 as? String)?.wholeMatch(of: /\d{4}-\d{2}/) != nil })
    }

    @Test("without --json: an aligned table under a header of column names")
    func alignedTable() async throws {
        let home = try await Self.importedHome()
        defer { home.remove() }

        let outcome = try await home.runApproved(sql: "SELECT givenName, familyName, phoneNumbers FROM Contact",
                                   compute: "contacts.tuples", json: false)
        #expect(outcome.succeeded, "\(outcome)")
        let lines = outcome.outputLines.map(Array.init)
        let header = try #require(lines.first)
        #expect(String(header).split(separator: " ", omittingEmptySubsequences: true) == ["givenName", "familyName", "phoneNumber"])
        let starts = ["givenName", "familyName", "phoneNumber"].compactMap { String(header).range(of: $0) }
            .map { String(header).distance(from: String(header).startIndex, to: $0.lowerBound) }
        let body = lines.dropFirst().filter { $0.first != "(" }
        #expect(body.count == (try SampleData.phoneNumberCount()))
        for line in body {
            for start in starts.dropFirst() {
                #expect(line.count > start && line[start] != " " && line[start - 1] == " ",
                        "column not aligned at \(start): \(String(line))")
            }
        }
        #expect(outcome.outputLines.last?.hasPrefix("(\(body.count) rows") == true, "\(outcome)")
    }
}
