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

    /// Opens the data database of an initialised home, upgrading its schemas first for writing (WAL).
    public init(home: EscrowHome) throws(StoreError) {
        try home.upgrade()
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

    /// The id of a contact: its vCard UID, or for a card without one, SHA-256 over the card's
    /// stored content, so re-importing the same card finds the same row.
    static func contactID(_ record: ContactRecord, scratch: inout [UInt8]) -> String {
        if let uid = record.uid { return uid }
        scratch.removeAll(keepingCapacity: true)
        func add(_ field: String?) {
            if let field { scratch.appendUTF8(field) } else { scratch.append(0x00) }
            scratch.append(0x1F)
        }
        func add(_ list: [LabeledValue]) {
            for item in list {
                add(item.label)
                add(item.value)
            }
            scratch.append(0x1E)
        }
        add(record.contactType)
        add(record.namePrefix)
        add(record.givenName)
        add(record.middleName)
        add(record.familyName)
        add(record.nameSuffix)
        add(record.nickname)
        add(record.organizationName)
        add(record.departmentName)
        add(record.jobTitle)
        add(record.birthday)
        add(record.note)
        add(record.phoneNumbers)
        add(record.emailAddresses)
        add(record.urlAddresses)
        for address in record.postalAddresses {
            add(address.label)
            add(address.street)
            add(address.city)
            add(address.state)
            add(address.postalCode)
            add(address.country)
        }
        scratch.append(0x1E)
        for group in record.groups { add(group) }
        var hasher = SHA256()
        scratch.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return "vcard-" + Hex.encode(hasher.finalize().prefix(16))
    }

    /// Inserts or updates contacts, one transaction. A contact keeps its vCard UID as id; a card
    /// without UID gets an id derived from its content, so re-importing the same file changes
    /// nothing.
    ///
    /// - Parameter containerID: the CNContainer the cards belong to (the source account).
    public func insertContacts(_ records: [ContactRecord], containerID: String) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        summary.records = records.count
        var scratch: [UInt8] = []
        scratch.reserveCapacity(1024)
        let ids = records.map { Self.contactID($0, scratch: &scratch) }
        // Write in id order, each id once (a card repeated in the file counts as unchanged).
        var order = ids.indices.sorted { ids[$0] < ids[$1] }
        var unique = 0
        for position in order.indices where position == 0 || ids[order[position]] != ids[order[unique - 1]] {
            order[unique] = order[position]
            unique += 1
        }
        summary.unchanged = order.count - unique
        order.removeLast(order.count - unique)

        let insert = try database.prepare(Self.insertContactSQL)
        try database.transaction { () throws(StoreError) in
            let before = try database.scalarInt("SELECT count(*) FROM Contact") ?? 0
            var changed = 0
            var arena = TextArena()
            for index in order {
                let record = records[index]
                arena.removeAll()
                arena.set(ids[index], at: 1)
                arena.set(containerID, at: 2)
                arena.setJSON(at: 3) { JSONColumns.write(record.groups, to: &$0) }
                arena.set(record.contactType, at: 4)
                arena.set(record.namePrefix, at: 5)
                arena.set(record.givenName, at: 6)
                arena.set(record.middleName, at: 7)
                arena.set(record.familyName, at: 8)
                arena.set(record.nameSuffix, at: 9)
                arena.set(record.nickname, at: 10)
                arena.set(record.organizationName, at: 11)
                arena.set(record.departmentName, at: 12)
                arena.set(record.jobTitle, at: 13)
                arena.setJSON(at: 14) { JSONColumns.write(record.phoneNumbers, to: &$0) }
                arena.setJSON(at: 15) { JSONColumns.write(record.emailAddresses, to: &$0) }
                arena.setJSON(at: 16) { JSONColumns.write(record.postalAddresses, to: &$0) }
                arena.setJSON(at: 17) { JSONColumns.write(record.urlAddresses, to: &$0) }
                arena.set(record.birthday, at: 18)
                arena.set(record.note, at: 19)
                try insert.run(arena)
                changed += database.changes
            }
            let after = try database.scalarInt("SELECT count(*) FROM Contact") ?? 0
            summary.added = Int(after - before)
            summary.updated = changed - summary.added
            summary.unchanged += order.count - changed
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
        // In asset-id order, so the UNIQUE index on `asset` grows at its end.
        let keys = rows.map { AssetOrder($0.assetID) }
        let sorted = rows.indices.sorted { keys[$0] < keys[$1] }.lazy.map { rows[$0] }
        let insert = try database.prepare("""
            INSERT OR IGNORE INTO Photos
                (asset, mediaType, format, creationDate, modificationDate, pixelWidth, pixelHeight, duration,
                 latitude, longitude, isFavorite, byteSize, originalFilename)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
            """)
        try database.transaction { () throws(StoreError) in
            var arena = TextArena()
            for row in sorted {
                let info = row.info
                arena.removeAll()
                arena.set(row.assetID, at: 1)
                arena.set(info.mediaType.rawValue, at: 2)
                arena.set(info.format, at: 3)
                arena.setTimestamp(info.creationDate ?? row.modificationDate, at: 4)
                arena.setTimestamp(row.modificationDate, at: 5)
                arena.set(row.originalFilename, at: 12)
                try insert.bind(integer: info.pixelWidth.map(Int64.init), at: 6)
                try insert.bind(integer: info.pixelHeight.map(Int64.init), at: 7)
                try insert.bind(real: info.duration, at: 8)
                try insert.bind(real: info.latitude, at: 9)
                try insert.bind(real: info.longitude, at: 10)
                try insert.bind(integer: Int64(row.byteSize), at: 11)
                try insert.run(arena)
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

/// The order of asset ids (lower-case hex SHA-256) as text, compared mostly as numbers: the first
/// 16 digits as a `UInt64` sort almost every pair, the whole text the rest. Sorting 5000 ids by
/// text alone was a tenth of a photo import.
private struct AssetOrder: Comparable {
    let prefix: UInt64
    let id: String

    init(_ id: String) {
        var prefix: UInt64 = 0
        for digit in id.utf8.prefix(16) { prefix = prefix << 4 | UInt64(Hex.value(of: digit) ?? 0) }
        self.prefix = prefix
        self.id = id
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.prefix != rhs.prefix ? lhs.prefix < rhs.prefix : lhs.id < rhs.id
    }
}

/// Encodings of the Contact table's multi-valued JSON columns.
enum JSONColumns {
    static func write(_ values: [String], to writer: inout JSONWriter) {
        writer.array(values) { writer, value in writer.string(value) }
    }

    static func write(_ values: [LabeledValue], to writer: inout JSONWriter) {
        writer.array(values) { writer, item in
            writer.object { object in
                object.field("label", item.label)
                object.field("value", item.value)
            }
        }
    }

    static func write(_ values: [PostalAddress], to writer: inout JSONWriter) {
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
    }
}
