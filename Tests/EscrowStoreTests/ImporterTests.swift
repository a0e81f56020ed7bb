import EscrowCore
@testable import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Importers end to end: files on disk → rows, one transaction each, idempotent.
@Suite struct ImporterTests {
    let logger = Logger(label: "test")

    func count(_ table: String, in home: EscrowHome) throws -> Int64 {
        let database = try Database(path: home.dataDatabasePath, mode: .readOnly)
        return try database.scalarInt("SELECT count(*) FROM \(table)") ?? -1
    }

    func write(_ text: String, name: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func fiveThousandContactsImportOnceAndReimportAddsNothing() async throws {
        try await TemporaryHome.with { temporary in
            let file = try write(SampleContacts.vCard(count: 5000), name: "contacts.vcf", in: temporary.url)
            let importer = Importer(home: temporary.home, logger: logger)
            let first = try importer.importContacts(from: file)
            #expect(first.records == 5000)
            #expect(first.added == 5000)
            #expect(try count("Contact", in: temporary.home) == 5000)
            let second = try importer.importContacts(from: file)
            #expect(second.added == 0)
            #expect(second.updated == 0)
            #expect(second.unchanged == 5000)
            #expect(try count("Contact", in: temporary.home) == 5000)
        }
    }

    @Test func contactWithoutUIDKeepsAStableIdentity() async throws {
        try await TemporaryHome.with { temporary in
            let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nTEL;TYPE=CELL:+1 555 0199\r\nEND:VCARD\r\n"
            let file = try write(card, name: "jane.vcf", in: temporary.url)
            let importer = Importer(home: temporary.home, logger: logger)
            #expect(try importer.importContacts(from: file).added == 1)
            #expect(try importer.importContacts(from: file).unchanged == 1)
            #expect(try count("Contact", in: temporary.home) == 1)
        }
    }

    /// A card without UID is stored under an id derived from its content; the derivation must
    /// never change, or re-importing a file into an existing home would duplicate every card.
    @Test func theDerivedIdentityIsTheOneEarlierVersionsStored() async throws {
        try await TemporaryHome.with { temporary in
            let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nTEL;TYPE=CELL:+1 555 0199\r\nEND:VCARD\r\n"
            let file = try write(card, name: "jane.vcf", in: temporary.url)
            _ = try Importer(home: temporary.home, logger: logger).importContacts(from: file)
            let database = try Database(path: temporary.home.dataDatabasePath, mode: .readOnly)
            let statement = try database.prepare("SELECT id FROM Contact")
            #expect(try statement.step())
            // SHA-256 over the fields as `DataWriter.contactID` documents them, first 16 bytes in hex
            // (checked against Python's hashlib).
            #expect(statement.string(0) == "vcard-60ac0b6910a63090b7e7381e5a3f2cd0")
        }
    }

    /// A row SQLite refuses in the middle of a large import (many batches, encoded on a second
    /// thread) fails the whole import: nothing is written and the error names the constraint.
    @Test func aRefusedRowInALargeContactImportWritesNothing() throws {
        let temporary = try TemporaryHome()
        defer { temporary.remove() }
        var records = (0..<3000).map { index in
            var record = ContactRecord(line: index * 5 + 1)
            record.uid = "card-\(index)"
            record.givenName = "Given \(index)"
            return record
        }
        records[2100].contactType = "robot"
        let writer = try DataWriter(home: temporary.home)
        #expect {
            try writer.insertContacts(records, containerID: "local")
        } throws: { error in
            "\(error)".contains("CHECK constraint failed")
        }
        #expect(try count("Contact", in: temporary.home) == 0)
        records[2100].contactType = "organization"
        #expect(try writer.insertContacts(records, containerID: "local").added == 3000)
        #expect(try count("Contact", in: temporary.home) == 3000)
    }

    @Test func changedCardUpdatesTheContact() async throws {
        try await TemporaryHome.with { temporary in
            let importer = Importer(home: temporary.home, logger: logger)
            let v1 = try write("BEGIN:VCARD\nVERSION:3.0\nUID:u-1\nN:Doe;Jane;;;\nEND:VCARD\n", name: "a.vcf", in: temporary.url)
            let v2 = try write("BEGIN:VCARD\nVERSION:3.0\nUID:u-1\nN:Doe;Janet;;;\nEND:VCARD\n", name: "b.vcf", in: temporary.url)
            #expect(try importer.importContacts(from: v1).added == 1)
            let summary = try importer.importContacts(from: v2)
            #expect(summary.updated == 1)
            let database = try Database(path: temporary.home.dataDatabasePath, mode: .readOnly)
            let statement = try database.prepare("SELECT givenName FROM Contact WHERE id = 'u-1'")
            #expect(try statement.step())
            #expect(statement.string(0) == "Janet")
        }
    }

    @Test func malformedVCardLeavesNothingWritten() async throws {
        try await TemporaryHome.with { temporary in
            let importer = Importer(home: temporary.home, logger: logger)
            let good = try write(SampleContacts.vCard(count: 3), name: "good.vcf", in: temporary.url)
            _ = try importer.importContacts(from: good)
            let before = try Data(contentsOf: URL(fileURLWithPath: temporary.home.dataDatabasePath))
            let bad = try write(SampleContacts.vCard(count: 50) + "BEGIN:VCARD\nVERSION:3.0\nN:Broken;Card\n", name: "bad.vcf", in: temporary.url)
            // The broken card begins on the line after the 50 good cards.
            let lines = SampleContacts.vCard(count: 50).utf8.filter { $0 == 0x0A }.count + 1
            #expect {
                try importer.importContacts(from: bad)
            } throws: { error in
                guard let error = error as? ImportError else { return false }
                return error.file == bad.path && error.line == lines && error.description.hasPrefix("\(bad.path):\(lines): ")
            }
            #expect(try count("Contact", in: temporary.home) == 3)
            let after = try Data(contentsOf: URL(fileURLWithPath: temporary.home.dataDatabasePath))
            #expect(before == after)
        }
    }

    @Test func locationsImportFromEachFormatAndReimportAddsNothing() async throws {
        try await TemporaryHome.with { temporary in
            let importer = Importer(home: temporary.home, logger: logger)
            let gpx = try write("""
                <?xml version="1.0"?>
                <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
                  <trk><trkseg>
                    <trkpt lat="52.5200" lon="13.4050"><ele>34</ele><time>2025-03-01T08:00:00Z</time></trkpt>
                    <trkpt lat="52.5205" lon="13.4060"><time>2025-03-01T08:00:30Z</time></trkpt>
                  </trkseg></trk>
                </gpx>
                """, name: "walk.gpx", in: temporary.url)
            let csv = try write("timestamp,latitude,longitude,accuracy\n2025-03-02T09:00:00Z,48.8566,2.3522,12\n", name: "points.csv", in: temporary.url)
            let geojson = try write("""
                {"type": "Feature", "properties": {"time": "2025-03-03T10:00:00Z"},
                 "geometry": {"type": "Point", "coordinates": [-0.1276, 51.5072]}}
                """, name: "point.geojson", in: temporary.url)
            #expect(try importer.importLocations(from: gpx).added == 2)
            #expect(try importer.importLocations(from: csv).added == 1)
            #expect(try importer.importLocations(from: geojson).added == 1)
            #expect(try importer.importLocations(from: gpx).unchanged == 2)
            #expect(try count("Location", in: temporary.home) == 4)
            let database = try Database(path: temporary.home.dataDatabasePath, mode: .readOnly)
            let latest = try database.prepare("SELECT timestamp, latitude, horizontalAccuracy FROM Location WHERE source = 'csv'")
            #expect(try latest.step())
            #expect(latest.string(0) == "2025-03-02T09:00:00.000Z")
            #expect(latest.double(1) == 48.8566)
            #expect(latest.double(2) == 12)
        }
    }

    @Test func malformedCSVRowNamesItsLineAndWritesNothing() async throws {
        try await TemporaryHome.with { temporary in
            let importer = Importer(home: temporary.home, logger: logger)
            let csv = try write("timestamp,latitude,longitude\n2025-03-02T09:00:00Z,48.85,2.35\n2025-03-02T09:01:00Z,north,2.35\n", name: "bad.csv", in: temporary.url)
            #expect {
                try importer.importLocations(from: csv)
            } throws: { error in
                (error as? ImportError)?.line == 3
            }
            #expect(try count("Location", in: temporary.home) == 0)
        }
    }

    @Test func photoFolderImportsMediaSkipsOtherFilesAndDuplicates() async throws {
        try await TemporaryHome.with { temporary in
            let folder = temporary.url.appendingPathComponent("Pictures/2025", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let photo = MediaFixtures.jpeg(width: 640, height: 480, exifDate: "2025:04:05 10:11:12", gps: (38.7223, -9.1393))
            try Data(photo).write(to: folder.appendingPathComponent("IMG_0001.JPG"))
            try Data(photo).write(to: folder.appendingPathComponent("copy of IMG_0001.jpg"))
            try Data(MediaFixtures.png(width: 3, height: 2)).write(to: folder.appendingPathComponent("shot.png"))
            try Data(MediaFixtures.mp4(durationSeconds: 12.5, width: 1920, height: 1080, creation: nil)).write(to: folder.appendingPathComponent("clip.mp4"))
            try Data(MediaFixtures.mp3(durationSeconds: 3)).write(to: folder.appendingPathComponent("memo.mp3"))
            try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))
            try Data("x".utf8).write(to: folder.appendingPathComponent(".DS_Store"))

            let importer = Importer(home: temporary.home, logger: logger)
            let root = temporary.url.appendingPathComponent("Pictures")
            let summary = try importer.importPhotos(from: root)
            #expect(summary.added == 4)
            #expect(summary.unchanged == 1, "the copy is a duplicate by content")
            #expect(summary.skippedFiles == 1, "notes.txt; hidden files are not read at all")
            #expect(try count("Photos", in: temporary.home) == 4)

            let database = try Database(path: temporary.home.dataDatabasePath, mode: .readOnly)
            let row = try database.prepare("""
                SELECT mediaType, format, pixelWidth, pixelHeight, creationDate, latitude, longitude, originalFilename, asset, byteSize
                FROM Photos WHERE format = 'jpeg'
                """)
            #expect(try row.step())
            #expect(row.string(0) == "image")
            #expect(row.int64(2) == 640)
            #expect(row.int64(3) == 480)
            #expect(row.string(4) == "2025-04-05T10:11:12.000Z")
            #expect(abs(row.double(5) - 38.7223) < 0.0001)
            #expect(abs(row.double(6) + 9.1393) < 0.0001)
            #expect(row.string(7) == "2025/IMG_0001.JPG")
            let assetID = try #require(row.string(8))
            #expect(assetID == AssetStore.assetID(of: photo))
            #expect(try AssetStore(root: temporary.home.assetsURL).bytes(of: assetID) == photo)
            #expect(row.int64(9) == Int64(photo.count))

            let again = try importer.importPhotos(from: root)
            #expect(again.added == 0)
            #expect(try count("Photos", in: temporary.home) == 4)
        }
    }

    @Test func corruptPhotoAbortsTheImportAndRemovesCopiedFiles() async throws {
        try await TemporaryHome.with { temporary in
            let folder = temporary.url.appendingPathComponent("in", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(MediaFixtures.jpeg(variant: 1)).write(to: folder.appendingPathComponent("a.jpg"))
            // A PNG signature followed by garbage: claims a format but cannot be read.
            try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 1]).write(to: folder.appendingPathComponent("b.png"))
            let importer = Importer(home: temporary.home, logger: logger)
            #expect {
                try importer.importPhotos(from: folder)
            } throws: { error in
                (error as? ImportError)?.file.hasSuffix("b.png") == true
            }
            #expect(try count("Photos", in: temporary.home) == 0)
            let stored = try FileManager.default.subpathsOfDirectory(atPath: temporary.home.assetsURL.path)
                .filter { !$0.contains(".partial") && $0.count > 2 }
            #expect(stored.isEmpty, "copied assets are removed when the import fails: \(stored)")
        }
    }

    /// Root reads a folder whatever its mode, so this runs only for other users; the CLI test
    /// `unreadablePhotoFolder` runs the same case for root, through `setpriv`.
    @Test(.enabled(if: getuid() != 0, "root can list a folder with mode 000; ImportCommandTests covers root"))
    func unreadableSubfolderFailsThePhotoImportAndWritesNothing() async throws {
        try await TemporaryHome.with { temporary in
            let folder = temporary.url.appendingPathComponent("in", isDirectory: true)
            let locked = folder.appendingPathComponent("locked", isDirectory: true)
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            try Data(MediaFixtures.jpeg(variant: 1)).write(to: folder.appendingPathComponent("a.jpg"))
            try Data(MediaFixtures.jpeg(variant: 2)).write(to: locked.appendingPathComponent("b.jpg"))
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
            let importer = Importer(home: temporary.home, logger: logger)
            #expect {
                try importer.importPhotos(from: folder)
            } throws: { error in
                guard let error = error as? ImportError else { return false }
                return error.file == locked.path && error.reason.contains("cannot be read")
            }
            #expect(try count("Photos", in: temporary.home) == 0)
        }
    }

    @Test func fiveThousandPhotoRecordsImport() async throws {
        try await TemporaryHome.with { temporary in
            let folder = temporary.url.appendingPathComponent("many", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for index in 1...5000 {
                let month = index % 12 + 1
                let date = "2024:\(month < 10 ? "0" : "")\(month):15 12:00:00"
                try Data(MediaFixtures.jpeg(exifDate: date, variant: index)).write(to: folder.appendingPathComponent("IMG_\(index).jpg"))
            }
            let summary = try Importer(home: temporary.home, logger: logger).importPhotos(from: folder)
            #expect(summary.added == 5000)
            #expect(try count("Photos", in: temporary.home) == 5000)
        }
    }

    @Test func progressIsReportedForLargeInputs() async throws {
        try await TemporaryHome.with { temporary in
            let file = try write(SampleContacts.vCard(count: 600), name: "c.vcf", in: temporary.url)
            let seen = Mutex<[ImportProgress]>([])
            _ = try Importer(home: temporary.home, logger: logger).importContacts(from: file) { progress in
                seen.withLock { $0.append(progress) }
            }
            let reports = seen.withLock { $0 }
            #expect(reports.last == ImportProgress(kind: .contacts, done: 600, total: 600))
        }
    }

    @Test func missingFileAndFolderErrorsSayWhat() async throws {
        try await TemporaryHome.with { temporary in
            let importer = Importer(home: temporary.home, logger: logger)
            let missing = temporary.url.appendingPathComponent("nope.vcf")
            #expect(throws: ImportError(file: missing.path, line: nil, reason: "no such file")) {
                try importer.importContacts(from: missing)
            }
            #expect(throws: ImportError(file: missing.path, line: nil, reason: "not a folder; pass the folder that holds the photos")) {
                try Data("x".utf8).write(to: missing)
                return try importer.importPhotos(from: missing)
            }
        }
    }

    @Test func importsAreLoggedInTheEscrowDatabase() async throws {
        try await TemporaryHome.with { temporary in
            let file = try write(SampleContacts.vCard(count: 2), name: "c.vcf", in: temporary.url)
            _ = try Importer(home: temporary.home, logger: logger).importContacts(from: file)
            let state = try Database(path: temporary.home.stateDatabasePath, mode: .readOnly)
            #expect(try state.scalarInt("SELECT added FROM Import WHERE kind = 'contacts'") == 2)
        }
    }
}

@Suite struct EscrowHomeTests {
    @Test func initCreatesPrivateFolderAndIsRepeatable() throws {
        let temporary = try TemporaryHome()
        defer { temporary.remove() }
        let attributes = try FileManager.default.attributesOfItem(atPath: temporary.url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        try temporary.home.initialize()
        let data = try Database(path: temporary.home.dataDatabasePath, mode: .readOnly)
        #expect(try data.scalarInt("PRAGMA user_version") == Int64(Migrations.latestVersion(.data)))
        #expect(try data.scalarInt("SELECT count(*) FROM sqlite_master WHERE name IN ('Contact', 'Location', 'Photos')") == 3)
        #expect(try data.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'Import'") == 0, "escrow state is not in the data file")
        let state = try Database(path: temporary.home.stateDatabasePath, mode: .readOnly)
        #expect(try state.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'Import'") == 1)
    }

    @Test func aHomeIsCreatedInAnEmptyFolderButNotOverOtherFiles() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-parent-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let empty = parent.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try EscrowHome(url: empty).initialize()
        #expect(EscrowHome(url: empty).isInitialized)

        let busy = parent.appendingPathComponent("busy")
        try FileManager.default.createDirectory(at: busy, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: busy.appendingPathComponent("notes.txt"))
        #expect {
            try EscrowHome(url: busy).initialize()
        } throws: { error in
            "\(error)".contains("is not empty and not an escrow home")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: busy.path) == ["notes.txt"])
        // Nothing is left behind next to the homes: no staging folders.
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted() == ["busy", "empty"])
    }

    @Test func aNewerSchemaIsRefused() throws {
        let temporary = try TemporaryHome()
        defer { temporary.remove() }
        let data = try Database(path: temporary.home.dataDatabasePath, mode: .readWrite)
        try data.execute("PRAGMA user_version = 999")
        #expect(throws: StoreError.self) { try temporary.home.initialize() }
    }

    /// The store says what is wrong, as a kind of its own; the command that creates a home is the
    /// CLI's to name (`RunErrorTests.beforeInit`).
    @Test func anUninitialisedHomeIsNamedAsSuch() {
        let home = EscrowHome(url: URL(fileURLWithPath: "/tmp/escrow-missing-\(UUID().uuidString)"))
        #expect(throws: StoreError.notAnEscrowHome(home.url.path)) {
            try home.requireInitialized()
        }
        #expect(StoreError.notAnEscrowHome(home.url.path).kind == .notAnEscrowHome(path: home.url.path))
        #expect(StoreError.notAnEscrowHome(home.url.path).description == "\(home.url.path) is not an escrow home")
    }

    @Test func walIsOn() throws {
        let temporary = try TemporaryHome()
        defer { temporary.remove() }
        let writer = try DataWriter(home: temporary.home)
        let mode = try writer.database.prepare("PRAGMA journal_mode")
        #expect(try mode.step())
        #expect(mode.string(0) == "wal")
    }

    /// A new home's databases are written from files built with escrow; they must be what running
    /// the migrations gives, readable, intact and in WAL mode before anything else opens them.
    @Test(arguments: [Migrations.Schema.data, .state])
    func aNewHomeHoldsWhatTheMigrationsWrite(schema: Migrations.Schema) throws {
        let temporary = try TemporaryHome()
        defer { temporary.remove() }
        let path = schema == .data ? temporary.home.dataDatabasePath : temporary.home.stateDatabasePath
        let file = try Database(path: path, mode: .readOnly)
        let migrated = try Database(path: ":memory:", mode: .readWrite)
        try Migrations.migrate(migrated, to: schema)

        func rows(_ database: Database, _ sql: String) throws -> [[String?]] {
            let statement = try database.prepare(sql)
            var rows: [[String?]] = []
            while try statement.step() {
                rows.append((0..<statement.columnCount).map { statement.string($0) })
            }
            return rows
        }
        let schemaSQL = "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name"
        #expect(try rows(file, schemaSQL) == rows(migrated, schemaSQL))
        #expect(try rows(file, schemaSQL).count > 1)
        #expect(try file.scalarInt("PRAGMA user_version") == Int64(Migrations.latestVersion(schema)))
        #expect(try rows(file, "PRAGMA journal_mode") == [["wal"]])
        #expect(try rows(file, "PRAGMA integrity_check") == [["ok"]])
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }
}
