import Crypto
import EscrowCore
import Foundation

/// What one import changed.
public struct ImportSummary: Sendable, Equatable {
    /// Records read from the source.
    public var records = 0
    /// Rows inserted.
    public var added = 0
    /// Existing rows whose content changed (contacts with the same id).
    public var updated = 0
    /// Records already present unchanged (a re-import), or duplicates within the source.
    public var unchanged = 0
    /// Files skipped because they are not supported media (photo imports).
    public var skippedFiles = 0

    public init() {}
}

/// One `Photos` row to insert.
public struct PhotoRow: Sendable, Hashable {
    public var assetID: String
    public var info: MediaInfo
    /// Seconds since 1970 of the file's modification time.
    public var modificationDate: Double?
    public var byteSize: Int
    public var originalFilename: String

    public init(assetID: String, info: MediaInfo, modificationDate: Double?, byteSize: Int, originalFilename: String) {
        self.assetID = assetID
        self.info = info
        self.modificationDate = modificationDate
        self.byteSize = byteSize
        self.originalFilename = originalFilename
    }
}

/// The writer connection of the data database: the only code that inserts into Contact, Location
/// and Photos. Every `insert…` call is one transaction: it commits whole or not at all.
///
/// Not thread-safe; imports run one at a time (SQLite serialises writers across processes).
public final class DataWriter {
    public let database: Database

    /// Opens the data database of an initialised home for writing (WAL).
    public init(home: EscrowHome) throws(StoreError) {
        try home.requireInitialized()
        database = try Database(path: home.dataDatabasePath, mode: .readWrite)
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
    }

    /// Opens the writer over an existing connection (benchmarks, tests).
    public init(database: Database) {
        self.database = database
    }

    // MARK: Contact

    private static let contactColumns = [
        "id", "containerId", "groups", "contactType", "namePrefix", "givenName", "middleName", "familyName",
        "nameSuffix", "nickname", "organizationName", "departmentName", "jobTitle", "phoneNumbers",
        "emailAddresses", "postalAddresses", "urlAddresses", "birthday", "note",
    ]

    private static let insertContactSQL: String = {
        let columns = contactColumns.joined(separator: ", ")
        let placeholders = contactColumns.map { _ in "?" }.joined(separator: ", ")
        let updates = contactColumns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let changed = contactColumns.dropFirst().map { "Contact.\($0) IS NOT excluded.\($0)" }.joined(separator: " OR ")
        return "INSERT INTO Contact (\(columns)) VALUES (\(placeholders)) ON CONFLICT(id) DO UPDATE SET \(updates) WHERE \(changed)"
    }()

    /// Inserts or updates contacts, one transaction. A contact keeps its vCard UID as id; a card
    /// without UID gets an id derived from its content, so re-importing the same file changes
    /// nothing.
    ///
    /// - Parameter containerID: the CNContainer the cards belong to (the source account).
    public func insertContacts(_ records: [ContactRecord], containerID: String) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        summary.records = records.count
        let exists = try database.prepare("SELECT 1 FROM Contact WHERE id = ?")
        let insert = try database.prepare(Self.insertContactSQL)
        try inTransaction { () throws(StoreError) in
            var seen = Set<String>()
            for record in records {
                let id = record.uid ?? Self.derivedID(record)
                guard seen.insert(id).inserted else {
                    summary.unchanged += 1
                    continue
                }
                try exists.bind(.text(id), at: 1)
                let existed = try exists.step()
                exists.reset()
                let keys: [SQLValue?] = [
                    .text(id), .text(containerID), .text(Self.json(record.groups)), .text(record.contactType),
                ]
                let names: [SQLValue?] = [
                    .nullable(record.namePrefix), .nullable(record.givenName), .nullable(record.middleName),
                    .nullable(record.familyName), .nullable(record.nameSuffix), .nullable(record.nickname),
                    .nullable(record.organizationName), .nullable(record.departmentName), .nullable(record.jobTitle),
                ]
                let details: [SQLValue?] = [
                    .text(Self.json(record.phoneNumbers)), .text(Self.json(record.emailAddresses)),
                    .text(Self.json(record.postalAddresses)), .text(Self.json(record.urlAddresses)),
                    .nullable(record.birthday), .nullable(record.note),
                ]
                try insert.run(keys + names + details)
                if database.changes == 0 {
                    summary.unchanged += 1
                } else if existed {
                    summary.updated += 1
                } else {
                    summary.added += 1
                }
            }
        }
        return summary
    }

    /// A stable id for a card without UID: SHA-256 over its content.
    static func derivedID(_ record: ContactRecord) -> String {
        var copy = record
        copy.line = 0
        let canonical = [
            copy.contactType, copy.namePrefix, copy.givenName, copy.middleName, copy.familyName, copy.nameSuffix,
            copy.nickname, copy.organizationName, copy.departmentName, copy.jobTitle,
            json(copy.phoneNumbers), json(copy.emailAddresses), json(copy.postalAddresses), json(copy.urlAddresses),
            copy.birthday, copy.note, json(copy.groups),
        ].map { $0 ?? "\u{0}" }.joined(separator: "\u{1F}")
        let digest = SHA256.hash(data: Array(canonical.utf8))
        return "vcard-" + digest.prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private static func json(_ values: [String]) -> String {
        var writer = JSONWriter()
        writer.array(values) { writer, value in writer.string(value) }
        return writer.text
    }

    private static func json(_ values: [LabeledValue]) -> String {
        var writer = JSONWriter()
        writer.array(values) { writer, item in
            writer.object { object in
                object.field("label", item.label)
                object.field("value", item.value)
            }
        }
        return writer.text
    }

    private static func json(_ values: [PostalAddress]) -> String {
        var writer = JSONWriter()
        writer.array(values) { writer, address in
            writer.object { object in
                object.field("label", address.label)
                object.field("street", address.street)
                object.field("city", address.city)
                object.field("state", address.state)
                object.field("postalCode", address.postalCode)
                object.field("country", address.country)
            }
        }
        return writer.text
    }

    // MARK: Location

    /// Inserts location fixes, one transaction; a fix already stored (same time and coordinates)
    /// is left alone.
    public func insertLocations(_ records: [LocationRecord]) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        summary.records = records.count
        let insert = try database.prepare("""
            INSERT OR IGNORE INTO Location
                (timestamp, latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, speed, course, floor, source)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try inTransaction { () throws(StoreError) in
            for record in records {
                let timestamp: String? = record.timestamp.map { Timestamp.format(secondsSince1970: $0) }
                let values: [SQLValue?] = [
                    .nullable(timestamp), .real(record.latitude), .real(record.longitude), .nullable(record.altitude),
                    .nullable(record.horizontalAccuracy), .nullable(record.verticalAccuracy), .nullable(record.speed),
                    .nullable(record.course), .nullable(record.floor), .text(record.source),
                ]
                try insert.run(values)
                if database.changes == 0 { summary.unchanged += 1 } else { summary.added += 1 }
            }
        }
        return summary
    }

    // MARK: Photos

    /// Inserts photo records, one transaction; a record whose content hash is already stored is
    /// skipped.
    public func insertPhotos(_ rows: [PhotoRow]) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        summary.records = rows.count
        let insert = try database.prepare("""
            INSERT OR IGNORE INTO Photos
                (asset, mediaType, format, creationDate, modificationDate, pixelWidth, pixelHeight, duration,
                 latitude, longitude, isFavorite, byteSize, contentHash, originalFilename)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)
            """)
        try inTransaction { () throws(StoreError) in
            for row in rows {
                let info = row.info
                let created: String? = (info.creationDate ?? row.modificationDate).map { Timestamp.format(secondsSince1970: $0) }
                let modified: String? = row.modificationDate.map { Timestamp.format(secondsSince1970: $0) }
                let identity: [SQLValue?] = [.text(row.assetID), .text(info.mediaType.rawValue), .text(info.format)]
                let dates: [SQLValue?] = [.nullable(created), .nullable(modified)]
                let shape: [SQLValue?] = [
                    .nullable(info.pixelWidth), .nullable(info.pixelHeight), .nullable(info.duration),
                    .nullable(info.latitude), .nullable(info.longitude),
                ]
                let file: [SQLValue?] = [.integer(Int64(row.byteSize)), .text(row.assetID), .text(row.originalFilename)]
                try insert.run(identity + dates + shape + file)
                if database.changes == 0 { summary.unchanged += 1 } else { summary.added += 1 }
            }
        }
        return summary
    }

    /// Asset ids already stored, among `ids`.
    public func storedAssetIDs() throws(StoreError) -> Set<String> {
        let query = try database.prepare("SELECT contentHash FROM Photos")
        var ids = Set<String>()
        while try query.step() {
            if let id = query.string(0) { ids.insert(id) }
        }
        return ids
    }

    private func inTransaction(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        try database.transaction(body)
    }
}
