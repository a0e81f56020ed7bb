import Foundation

/// The numbered schema migrations of `Schemas/` (embedded at build time), applied to a database
/// file with the applied version tracked in `PRAGMA user_version`.
public enum Migrations {
    /// Which schema a database file carries.
    public enum Schema: String, Sendable {
        /// `Schemas/data`: the Contact, Location and Photos tables.
        case data
        /// `Schemas/state`: the escrow's own state.
        case state
    }

    /// The schema version this build writes.
    public static func latestVersion(_ schema: Schema) -> Int {
        GeneratedSchemas.migrations[schema.rawValue]?.last?.version ?? 0
    }

    /// The bytes of a new database file with the latest version of `schema`, in WAL mode: what
    /// `migrate` on an empty database produces, built when escrow was built (see
    /// `EscrowCodegen`'s DatabaseImage.swift). A new home writes these instead of running the DDL.
    public static func newDatabaseFile(_ schema: Schema) throws(StoreError) -> [UInt8] {
        guard let image = GeneratedSchemas.images[schema.rawValue] else {
            throw StoreError(message: "this escrow was built without a \(schema.rawValue) database image; rebuild it")
        }
        return try image.bytes()
    }

    /// Brings `database` to the latest version of `schema`: every pending migration in one
    /// transaction.
    ///
    /// - Throws: `StoreError` when a migration fails (the database stays at the version it had)
    ///   or when the file was written by a newer escrow.
    public static func migrate(_ database: Database, to schema: Schema) throws(StoreError) {
        let current = Int(try database.scalarInt("PRAGMA user_version") ?? 0)
        let latest = latestVersion(schema)
        guard current <= latest else {
            throw StoreError(message: "\(database.path) has schema version \(current), newer than this escrow understands (\(latest)); upgrade escrow")
        }
        let pending = (GeneratedSchemas.migrations[schema.rawValue] ?? []).filter { $0.version > current }
        guard !pending.isEmpty else { return }
        // All pending migrations in one transaction: the database moves to the latest version or
        // stays where it was.
        var applying = pending[0].name
        do {
            try database.execute("BEGIN IMMEDIATE")
            // Another process may have applied some while this one waited for the write lock.
            let now = Int(try database.scalarInt("PRAGMA user_version") ?? 0)
            for migration in pending where migration.version > now {
                applying = migration.name
                try database.execute(migration.sql)
            }
            try database.execute("PRAGMA user_version = \(latest)")
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw StoreError(code: error.code, message: "schema migration \(schema.rawValue)/\(applying) failed: \(error.message)")
        }
    }
}

/// A database file embedded at build time: its size and its non-zero stretches, Base64-encoded.
struct DatabaseImage: Sendable {
    let size: Int
    let segments: [(offset: Int, base64: String)]

    /// The file's bytes.
    func bytes() throws(StoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        for segment in segments {
            guard let data = Data(base64Encoded: segment.base64), segment.offset + data.count <= size else {
                throw StoreError(message: "the embedded database image is damaged at offset \(segment.offset); rebuild escrow")
            }
            bytes.replaceSubrange(segment.offset..<(segment.offset + data.count), with: data)
        }
        return bytes
    }
}
