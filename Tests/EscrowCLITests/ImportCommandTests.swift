import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("escrow import")
struct ImportCommandTests {
    /// The added / already-present counts in `imported N kind from PATH: A added, U updated, P already present`.
    struct ImportLine {
        let records: Int
        let added: Int
        let updated: Int
        let alreadyPresent: Int

        init?(_ outcome: EscrowProcess.Outcome, kind: String) {
            guard let line = outcome.outputLines.last,
                  let match = line.firstMatch(of: /^imported (\d+) (\w+) from .+: (\d+) added, (\d+) updated, (\d+) already present/),
                  match.output.2 == kind,
                  let records = Int(match.output.1), let added = Int(match.output.3),
                  let updated = Int(match.output.4), let alreadyPresent = Int(match.output.5)
            else { return nil }
            self.records = records
            self.added = added
            self.updated = updated
            self.alreadyPresent = alreadyPresent
        }
    }

    @Test("contacts: counts on stdout; importing again adds nothing")
    func contacts() async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)
        let expected = try SampleData.contactCount()

        let first = try await home.escrow("import", "contacts", SampleData.contacts)
        #expect(first.succeeded, "\(first)")
        let firstLine = try #require(ImportLine(first, kind: "contacts"), "\(first)")
        #expect(firstLine.records == expected)
        #expect(firstLine.added == expected)
        #expect(firstLine.alreadyPresent == 0)

        let again = try await home.escrow("import", "contacts", SampleData.contacts)
        #expect(again.succeeded, "\(again)")
        let againLine = try #require(ImportLine(again, kind: "contacts"), "\(again)")
        #expect(againLine.added == 0)
        #expect(againLine.updated == 0)
        #expect(againLine.alreadyPresent == expected)
    }

    @Test("locations: every track and way point of the GPX file")
    func locations() async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)
        let gpx = try String(contentsOf: SampleData.url(SampleData.track), encoding: .utf8)
        let points = gpx.matches(of: /<(trkpt|wpt)\s/).count

        let first = try await home.escrow("import", "locations", SampleData.track)
        #expect(first.succeeded, "\(first)")
        let firstLine = try #require(ImportLine(first, kind: "locations"), "\(first)")
        #expect(firstLine.records == points)
        #expect(firstLine.added == points)

        let again = try await home.escrow("import", "locations", SampleData.track)
        let againLine = try #require(ImportLine(again, kind: "locations"), "\(again)")
        #expect(againLine.added == 0)
        #expect(againLine.alreadyPresent == points)
    }

    @Test("photos: every image in the folder and its subfolders; importing again adds nothing")
    func photos() async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)
        let images = try SampleData.imageFiles().count

        let first = try await home.escrow("import", "photos", SampleData.photos)
        #expect(first.succeeded, "\(first)")
        let firstLine = try #require(ImportLine(first, kind: "photos"), "\(first)")
        #expect(firstLine.records == images)
        #expect(firstLine.added == images)

        let again = try await home.escrow("import", "photos", SampleData.photos)
        #expect(again.succeeded, "\(again)")
        let againLine = try #require(ImportLine(again, kind: "photos"), "\(again)")
        #expect(againLine.added == 0)
        #expect(againLine.alreadyPresent == images)
    }

    /// How to start `escrow` so that a folder with mode 000 cannot be listed: as it is, or for
    /// root (who reads any folder) through `setpriv` without the capabilities that let root ignore
    /// permissions. Nil when the test runs as root and `setpriv` is missing.
    static let withoutPermissionOverride: [String]? = {
        guard getuid() == 0 else { return [] }
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return nil }
        return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"]
    }()

    @Test("photos: a subfolder that cannot be read fails the import, naming it, and imports nothing",
          .enabled(if: withoutPermissionOverride != nil, "runs as root without /usr/bin/setpriv to drop the capability to read any folder"))
    func unreadablePhotoFolder() async throws {
        let launcher = try #require(Self.withoutPermissionOverride)
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-photos-\(UUID().uuidString)")
        let locked = folder.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path)
            try? FileManager.default.removeItem(at: folder)
        }
        let images = Array(Set(try SampleData.imageFiles().values).prefix(2))
        try #require(images.count == 2)
        try images[0].write(to: folder.appendingPathComponent("top.jpg"))
        try images[1].write(to: locked.appendingPathComponent("inside.jpg"))
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked.path)

        let failed = try await EscrowProcess.run(["--home", home.path, "import", "photos", folder.path], launcher: launcher)
        #expect(failed.status != 0, "\(failed)")
        #expect(failed.errorLines.count == 1, "\(failed)")
        #expect(failed.standardError.contains(locked.path), "\(failed)")
        #expect(failed.standardError.contains("cannot be read"), "\(failed)")

        // Nothing was imported: once the folder is readable, both pictures are new.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path)
        let imported = try await home.escrow("import", "photos", folder.path)
        let line = try #require(ImportLine(imported, kind: "photos"), "\(imported)")
        #expect(line.added == 2)
    }

    @Test("a malformed vCard fails with file:line: and imports nothing")
    func malformedVCard() async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)
        try #require(try await home.escrow("import", "contacts", SampleData.contacts).succeeded)
        let before = try SampleData.contactCount()

        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("escrow-cli-test-vcf-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("truncated.vcf")
        let vCard = """
            BEGIN:VCARD
            VERSION:3.0
            N:Doe;Jane;;;
            FN:Jane Doe
            TEL:(555) 555-0901
            END:VCARD
            BEGIN:VCARD
            VERSION:3.0
            N:Roe;Rick;;;
            FN:Rick Roe
            TEL:(555) 555-0902

            """
        try vCard.write(to: file, atomically: true, encoding: .utf8)

        let outcome = try await home.escrow("import", "contacts", file.path)
        #expect(outcome.status != 0, "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
        #expect(outcome.standardError.contains("truncated.vcf:7:"), "\(outcome)")

        let counted = try await home.runApproved(sql: "SELECT count(*) AS n FROM Contact", compute: "identity")
        #expect(counted.succeeded, "\(counted)")
        let frame = try #require(FrameJSON(counted.standardOutput), "\(counted)")
        #expect(frame.onlyRow?["n"] as? Int == before)
    }
}
