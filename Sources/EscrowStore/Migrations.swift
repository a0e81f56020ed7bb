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
