import Foundation

/// The escrow home: one folder owned by the individual (mode 0700) holding the data database,
/// the escrow's own database and the content-addressed assets. Deleting the folder deletes
/// everything.
///
/// Layout:
/// - `data.sqlite`: Contact, Location, Photos (the only tables access() SQL can read)
/// - `escrow.sqlite`: the escrow's own state; never opened by the guarded connection
/// - `assets/ab/abcdef…`: media files by SHA-256 of their content
public struct EscrowHome: Sendable, Hashable {
    /// The folder.
    public let url: URL

    public init(url: URL) { self.url = url.standardizedFileURL }

    public var dataDatabasePath: String { url.appendingPathComponent("data.sqlite").path }
    public var stateDatabasePath: String { url.appendingPathComponent("escrow.sqlite").path }
    public var assetsURL: URL { url.appendingPathComponent("assets", isDirectory: true) }

    /// Whether `init` has been run here.
    public var isInitialized: Bool { FileManager.default.fileExists(atPath: dataDatabasePath) }

    /// Creates the folder (mode 0700), both databases with their schemas, and the asset folder.
    /// Safe to run again: it only applies migrations that are missing.
    ///
    /// - Throws: `StoreError` when the folder cannot be created or a migration fails.
    public func initialize() throws(StoreError) {
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
            try manager.createDirectory(at: assetsURL, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(message: "cannot create the escrow home \(url.path): \(error.localizedDescription)")
        }
        // WAL with synchronous=NORMAL: a commit survives a crash of the process; migrations need
        // no stronger guarantee (an interrupted one is rolled back and applied again).
        let data = try Database(path: dataDatabasePath, mode: .readWrite)
        try data.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        try Migrations.migrate(data, to: .data)
        let state = try Database(path: stateDatabasePath, mode: .readWrite)
        try state.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        try Migrations.migrate(state, to: .state)
    }

    /// Applies the migrations a newer escrow brings to an initialised home; a no-op (two quick
    /// reads of `user_version`) when the home is current. Writers of the home call it when they
    /// open it, so upgrading the escrow needs no extra step.
    ///
    /// - Throws: `StoreError` when the home is not initialised, is newer than this escrow, or a
    ///   migration fails (it is rolled back; the home stays as it was).
    public func upgrade() throws(StoreError) {
        try requireInitialized()
        try Migrations.migrate(try Database(path: dataDatabasePath, mode: .readWrite), to: .data)
        try Migrations.migrate(try Database(path: stateDatabasePath, mode: .readWrite), to: .state)
    }

    /// Throws a clear error when the home has not been initialised.
    public func requireInitialized() throws(StoreError) {
        guard isInitialized else {
            throw StoreError(message: "\(url.path) is not an escrow home; create it with `escrow --home \(url.path) init`")
        }
    }
}
