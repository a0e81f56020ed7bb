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
/// Rows are inserted in key order (contact id, asset id, time), so SQLite appends to its B-trees
/// instead of splitting pages at random: a measurable share of an import's cost.
///
/// Not thread-safe; imports run one at a time (SQLite serialises writers across processes).
public final class DataWriter {
    public let database: Database

    /// Opens the data database of an initialised home for writing (WAL).
    public init(home: EscrowHome) throws(StoreError) {
        try home.requireInitialized()
        database = try Database(path: home.dataDatabasePath, mode: .readWrite)
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
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

    /// A contact as the row stores it: multi-valued fields already encoded as JSON.
    private struct ContactRow {
        var id: String
        let record: ContactRecord
        let groups: String
        let phoneNumbers: String
        let emailAddresses: String
        let postalAddresses: String
        let urlAddresses: String

        init(_ record: ContactRecord) {
            self.record = record
            groups = JSONColumns.encode(record.groups)
            phoneNumbers = JSONColumns.encode(record.phoneNumbers)
            emailAddresses = JSONColumns.encode(record.emailAddresses)
            postalAddresses = JSONColumns.encode(record.postalAddresses)
            urlAddresses = JSONColumns.encode(record.urlAddresses)
            id = record.uid ?? ""
            if record.uid == nil { id = derivedID() }
        }

        /// A stable id for a card without UID: SHA-256 over its stored content, so re-importing
        /// the same card finds the same row.
        private func derivedID() -> String {
            var hash = SHA256()
            let fields: [String?] = [
                record.contactType, record.namePrefix, record.givenName, record.middleName, record.familyName,
                record.nameSuffix, record.nickname, record.organizationName, record.departmentName, record.jobTitle,
                phoneNumbers, emailAddresses, postalAddresses, urlAddresses, record.birthday, record.note, groups,
            ]
            for field in fields {
                if var field {
                    field.withUTF8 { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }
                    hash.update(data: [0x1F])
                } else {
                    hash.update(data: [0x00, 0x1F])
                }
            }
            return "vcard-" + Hex.encode(hash.finalize().prefix(16))
        }
    }

    /// Inserts or updates contacts, one transaction. A contact keeps its vCard UID as id; a card
    /// without UID gets an id derived from its content, so re-importing the same file changes
    /// nothing.
    ///
    /// - Parameter containerID: the CNContainer the cards belong to (the source account).
    public func insertContacts(_ records: [ContactRecord], containerID: String) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        summary.records = records.count
        var seen = Set<String>()
        seen.reserveCapacity(records.count)
        var rows: [ContactRow] = []
        rows.reserveCapacity(records.count)
        for record in records {
            let row = ContactRow(record)
            if seen.insert(row.id).inserted { rows.append(row) } else { summary.unchanged += 1 }
        }
        rows.sort { $0.id < $1.id }

        let insert = try database.prepare(Self.insertContactSQL)
        try database.transaction { () throws(StoreError) in
            let before = try database.scalarInt("SELECT count(*) FROM Contact") ?? 0
            var changed = 0
            for row in rows {
                let record = row.record
                try insert.bind(text: row.id, at: 1)
                try insert.bind(text: containerID, at: 2)
                try insert.bind(text: row.groups, at: 3)
                try insert.bind(text: record.contactType, at: 4)
                try insert.bind(text: record.namePrefix, at: 5)
                try insert.bind(text: record.givenName, at: 6)
                try insert.bind(text: record.middleName, at: 7)
                try insert.bind(text: record.familyName, at: 8)
                try insert.bind(text: record.nameSuffix, at: 9)
                try insert.bind(text: record.nickname, at: 10)
                try insert.bind(text: record.organizationName, at: 11)
                try insert.bind(text: record.departmentName, at: 12)
                try insert.bind(text: record.jobTitle, at: 13)
                try insert.bind(text: row.phoneNumbers, at: 14)
                try insert.bind(text: row.emailAddresses, at: 15)
                try insert.bind(text: row.postalAddresses, at: 16)
                try insert.bind(text: row.urlAddresses, at: 17)
                try insert.bind(text: record.birthday, at: 18)
                try insert.bind(text: record.note, at: 19)
                try insert.runBound()
                changed += database.changes
            }
            let after = try database.scalarInt("SELECT count(*) FROM Contact") ?? 0
            summary.added = Int(after - before)
            summary.updated = changed - summary.added
            summary.unchanged += rows.count - changed
        }
        return summary
    }

    // MARK: Location

    /// Inserts location fixes, one transaction; a fix already stored (same time and coordinates)
    /// is left alone.
    public func insertLocations(_ records: [LocationRecord]) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        summary.records = records.count
        let sorted = records.sorted { ($0.timestamp ?? -.infinity) < ($1.timestamp ?? -.infinity) }
        let insert = try database.prepare("""
            INSERT OR IGNORE INTO Location
                (timestamp, latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, speed, course, floor, source)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try database.transaction { () throws(StoreError) in
            for record in sorted {
                try insert.bind(text: record.timestamp.map { Timestamp.format(secondsSince1970: $0) }, at: 1)
                try insert.bind(real: record.latitude, at: 2)
                try insert.bind(real: record.longitude, at: 3)
                try insert.bind(real: record.altitude, at: 4)
                try insert.bind(real: record.horizontalAccuracy, at: 5)
                try insert.bind(real: record.verticalAccuracy, at: 6)
                try insert.bind(real: record.speed, at: 7)
                try insert.bind(real: record.course, at: 8)
                try insert.bind(integer: record.floor.map(Int64.init), at: 9)
                try insert.bind(text: record.source, at: 10)
                try insert.runBound()
                if database.changes == 0 { summary.unchanged += 1 } else { summary.added += 1 }
            }
        }
        return summary
    }

    // MARK: Photos

    /// Inserts photo records, one transaction; a record whose asset (content hash) is already
    /// stored is skipped.
    public func insertPhotos(_ rows: [PhotoRow]) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        summary.records = rows.count
        let sorted = rows.sorted { $0.assetID < $1.assetID }
        let insert = try database.prepare("""
            INSERT OR IGNORE INTO Photos
                (asset, mediaType, format, creationDate, modificationDate, pixelWidth, pixelHeight, duration,
                 latitude, longitude, isFavorite, byteSize, originalFilename)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
            """)
        try database.transaction { () throws(StoreError) in
            for row in sorted {
                let info = row.info
                let modified = row.modificationDate.map { Timestamp.format(secondsSince1970: $0) }
                let created = info.creationDate.map { Timestamp.format(secondsSince1970: $0) } ?? modified
                try insert.bind(text: row.assetID, at: 1)
                try insert.bind(text: info.mediaType.rawValue, at: 2)
                try insert.bind(text: info.format, at: 3)
                try insert.bind(text: created, at: 4)
                try insert.bind(text: modified, at: 5)
                try insert.bind(integer: info.pixelWidth.map(Int64.init), at: 6)
                try insert.bind(integer: info.pixelHeight.map(Int64.init), at: 7)
                try insert.bind(real: info.duration, at: 8)
                try insert.bind(real: info.latitude, at: 9)
                try insert.bind(real: info.longitude, at: 10)
                try insert.bind(integer: Int64(row.byteSize), at: 11)
                try insert.bind(text: row.originalFilename, at: 12)
                try insert.runBound()
                if database.changes == 0 { summary.unchanged += 1 } else { summary.added += 1 }
            }
        }
        return summary
    }

    /// The asset ids already stored.
    public func storedAssetIDs() throws(StoreError) -> Set<String> {
        let query = try database.prepare("SELECT asset FROM Photos")
        var ids = Set<String>()
        while try query.step() {
            if let id = query.string(0) { ids.insert(id) }
        }
        return ids
    }
}

/// Encodings of the Contact table's multi-valued JSON columns.
enum JSONColumns {
    static func encode(_ values: [String]) -> String {
        if values.isEmpty { return "[]" }
        var writer = JSONWriter()
        writer.array(values) { writer, value in writer.string(value) }
        return writer.text
    }

    static func encode(_ values: [LabeledValue]) -> String {
        if values.isEmpty { return "[]" }
        var writer = JSONWriter()
        writer.array(values) { writer, item in
            writer.object { object in
                object.field("label", item.label)
                object.field("value", item.value)
            }
        }
        return writer.text
    }

    static func encode(_ values: [PostalAddress]) -> String {
        if values.isEmpty { return "[]" }
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
}
