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
    static func contactID(of record: UnsafePointer<ContactRecord>, scratch: inout [UInt8]) -> String {
        if let uid = record.pointee.uid { return uid }
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
        add(record.pointee.contactType)
        add(record.pointee.namePrefix)
        add(record.pointee.givenName)
        add(record.pointee.middleName)
        add(record.pointee.familyName)
        add(record.pointee.nameSuffix)
        add(record.pointee.nickname)
        add(record.pointee.organizationName)
        add(record.pointee.departmentName)
        add(record.pointee.jobTitle)
        add(record.pointee.birthday)
        add(record.pointee.note)
        add(record.pointee.phoneNumbers)
        add(record.pointee.emailAddresses)
        add(record.pointee.urlAddresses)
        for address in record.pointee.postalAddresses {
            add(address.label)
            add(address.street)
            add(address.city)
            add(address.state)
            add(address.postalCode)
            add(address.country)
        }
        scratch.append(0x1E)
        for group in record.pointee.groups { add(group) }
        let digest = scratch.withUnsafeBytes { SHA256.hash(data: $0) }
        return digest.withUnsafeBytes { digest in Hex.encode(prefix: "vcard-", UnsafeRawBufferPointer(rebasing: digest.prefix(16))) }
    }

    /// Inserts or updates contacts, one transaction. A contact keeps its vCard UID as id; a card
    /// without UID gets an id derived from its content, so re-importing the same file changes
    /// nothing.
    ///
    /// - Parameter containerID: the CNContainer the cards belong to (the source account).
    public func insertContacts(_ records: [ContactRecord], containerID: String) throws(StoreError) -> ImportSummary {
        var summary = ImportSummary()
        summary.records = records.count
        let ids = Self.contactIDs(records)
        // Write in id order, each id once (a card repeated in the file counts as unchanged).
        let keys = ids.map(ByteOrder.init)
        var order = ids.indices.sorted { keys[$0] < keys[$1] }
        var unique = 0
        for position in order.indices where position == 0 || keys[order[position]] != keys[order[unique - 1]] {
            order[unique] = order[position]
            unique += 1
        }
        summary.unchanged = order.count - unique
        order.removeLast(order.count - unique)

        let insert = try database.prepare(Self.insertContactSQL)
        try database.transaction { () throws(StoreError) in
            let before = try database.scalarInt("SELECT count(*) FROM Contact") ?? 0
            var changed = 0
            try RowPipeline.run(rows: order.count) { [order] positions in
                var rows = ParameterRows(rows: positions.count, parametersPerRow: 19, bytesPerRow: 512)
                records.withUnsafeBufferPointer { records in
                    for index in order[positions] {
                        rows.set(ids[index], at: 1)
                        rows.set(containerID, at: 2)
                        Self.setContactFields(of: records.baseAddress.unsafelyUnwrapped + index, in: &rows)
                        rows.endRow()
                    }
                }
                return rows
            } insert: { (rows) throws(StoreError) in
                try insert.run(rows) { changed += database.changes }
            }
            // Into an empty table every change was an insert (counting scans the whole table).
            let after = before == 0 ? Int64(changed) : try database.scalarInt("SELECT count(*) FROM Contact") ?? 0
            summary.added = Int(after - before)
            summary.updated = changed - summary.added
            summary.unchanged += order.count - changed
        }
        return summary
    }

    /// The id of each record (`contactID`), hashed on every processor for a large import.
    static func contactIDs(_ records: [ContactRecord]) -> [String] {
        let workers = records.count >= 1000 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
        return Parallel.map(workers) { worker in
            let share = records.count * worker / workers..<records.count * (worker + 1) / workers
            var scratch: [UInt8] = []
            scratch.reserveCapacity(1024)
            return records.withUnsafeBufferPointer { records in
                share.map { Self.contactID(of: records.baseAddress.unsafelyUnwrapped + $0, scratch: &scratch) }
            }
        }.flatMap { $0 }
    }

    /// Parameters 3…19 of `insertContactSQL`: the card's own fields.
    ///
    /// Cards are read through a pointer into the array, field by field: passing a card as a
    /// value copied it whole (two dozen retains and releases per card).
    private static func setContactFields(of record: UnsafePointer<ContactRecord>, in rows: inout ParameterRows) {
        rows.setJSON(at: 3) { JSONColumns.write(record.pointee.groups, to: &$0) }
        rows.set(record.pointee.contactType, at: 4)
        rows.set(record.pointee.namePrefix, at: 5)
        rows.set(record.pointee.givenName, at: 6)
        rows.set(record.pointee.middleName, at: 7)
        rows.set(record.pointee.familyName, at: 8)
        rows.set(record.pointee.nameSuffix, at: 9)
        rows.set(record.pointee.nickname, at: 10)
        rows.set(record.pointee.organizationName, at: 11)
        rows.set(record.pointee.departmentName, at: 12)
        rows.set(record.pointee.jobTitle, at: 13)
        rows.setJSON(at: 14) { JSONColumns.write(record.pointee.phoneNumbers, to: &$0) }
        rows.setJSON(at: 15) { JSONColumns.write(record.pointee.emailAddresses, to: &$0) }
        rows.setJSON(at: 16) { JSONColumns.write(record.pointee.postalAddresses, to: &$0) }
        rows.setJSON(at: 17) { JSONColumns.write(record.pointee.urlAddresses, to: &$0) }
        rows.set(record.pointee.birthday, at: 18)
        rows.set(record.pointee.note, at: 19)
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
        let keys = rows.map { ByteOrder($0.assetID) }
        let sorted = rows.indices.sorted { keys[$0] < keys[$1] }
        let insert = try database.prepare("""
            INSERT OR IGNORE INTO Photos
                (asset, mediaType, format, creationDate, modificationDate, pixelWidth, pixelHeight, duration,
                 latitude, longitude, isFavorite, byteSize, originalFilename)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
            """)
        try database.transaction { () throws(StoreError) in
            try RowPipeline.run(rows: sorted.count) { positions in
                var encoded = ParameterRows(rows: positions.count, parametersPerRow: 12, bytesPerRow: 256)
                rows.withUnsafeBufferPointer { rows in
                    for index in sorted[positions] {
                        Self.setPhotoFields(of: rows.baseAddress.unsafelyUnwrapped + index, in: &encoded)
                        encoded.endRow()
                    }
                }
                return encoded
            } insert: { (encoded) throws(StoreError) in
                try insert.run(encoded) {
                    if database.changes == 0 { summary.unchanged += 1 } else { summary.added += 1 }
                }
            }
        }
        return summary
    }

    /// The parameters of the Photos insert (pointer: see `setContactFields`).
    private static func setPhotoFields(of row: UnsafePointer<PhotoRow>, in rows: inout ParameterRows) {
        rows.set(row.pointee.assetID, at: 1)
        rows.set(row.pointee.info.mediaType.rawValue, at: 2)
        rows.set(row.pointee.info.format, at: 3)
        rows.setTimestamp(row.pointee.info.creationDate ?? row.pointee.modificationDate, at: 4)
        rows.setTimestamp(row.pointee.modificationDate, at: 5)
        rows.set(integer: row.pointee.info.pixelWidth.map(Int64.init), at: 6)
        rows.set(integer: row.pointee.info.pixelHeight.map(Int64.init), at: 7)
        rows.set(real: row.pointee.info.duration, at: 8)
        rows.set(real: row.pointee.info.latitude, at: 9)
        rows.set(real: row.pointee.info.longitude, at: 10)
        rows.set(integer: Int64(row.pointee.byteSize), at: 11)
        rows.set(row.pointee.originalFilename, at: 12)
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

/// Text keys in the order SQLite's BINARY collation sorts them (their UTF-8 bytes), which is
/// the order its B-trees store them in. The first 16 bytes, loaded as two big-endian integers,
/// sort almost every pair of ids (contact ids share only their `vcard-` prefix, asset ids are
/// hex digests); the whole text the rest. Sorting 5000 ids as `String`s was a tenth of a photo
/// import.
struct ByteOrder: Comparable {
    let head: UInt64
    let next: UInt64
    let text: String

    init(_ text: String) {
        var words: (UInt64, UInt64) = (0, 0)
        var text = text
        text.withUTF8 { bytes in
            withUnsafeMutableBytes(of: &words) { words in
                words.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes).prefix(16)))
            }
        }
        head = UInt64(bigEndian: words.0)
        next = UInt64(bigEndian: words.1)
        self.text = text
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.head != rhs.head { return lhs.head < rhs.head }
        if lhs.next != rhs.next { return lhs.next < rhs.next }
        return lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.head == rhs.head && lhs.next == rhs.next && lhs.text.utf8.elementsEqual(rhs.text.utf8)
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
