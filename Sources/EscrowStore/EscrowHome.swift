import EscrowCore
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
    /// Compute modules, by the SHA-256 of their bytes (`SHA256.wasm`), made on the first one added.
    public var modulesURL: URL { url.appendingPathComponent("modules", isDirectory: true) }

    /// Whether `init` has been run here.
    public var isInitialized: Bool { FileManager.default.fileExists(atPath: dataDatabasePath) }

    /// Creates the folder (mode 0700), both databases with their schemas, and the asset folder;
    /// on an existing home, applies the migrations it lacks.
    ///
    /// A new home appears whole or not at all: it is built in a staging folder next to `url`
    /// (each database written in one piece from the file escrow was built with), each file is
    /// synced once, and the folder is renamed into place. `url` may be missing or an empty
    /// folder; a folder with other files in it is refused.
    ///
    /// - Throws: `StoreError` when the folder cannot be created, is not empty, or a migration fails.
    public func initialize() throws(StoreError) {
        if isInitialized {
            try upgrade()
        } else {
            try create()
        }
    }

    private func create() throws(StoreError) {
        let manager = FileManager.default
        let parent = url.deletingLastPathComponent()
        if let existing = try? manager.contentsOfDirectory(atPath: url.path), !existing.isEmpty {
            throw StoreError(message: "\(url.path) is not empty and not an escrow home; choose a new or empty folder")
        }
        let staging = parent.appendingPathComponent(".\(url.lastPathComponent).creating-\(UUID().uuidString)", isDirectory: true)
        do {
            try manager.createDirectory(at: parent, withIntermediateDirectories: true)
            try manager.createDirectory(at: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try manager.createDirectory(at: staging.appendingPathComponent("assets"), withIntermediateDirectories: false,
                                        attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(message: "cannot create the escrow home \(url.path): \(error.localizedDescription)")
        }
        do throws(StoreError) {
            let stagingHome = EscrowHome(url: staging)
            try Self.writeDatabases([(stagingHome.dataDatabasePath, .data), (stagingHome.stateDatabasePath, .state)])
            try Self.sync(staging.path)
            guard rename(staging.path, url.path) == 0 else {
                throw StoreError(message: "cannot create the escrow home \(url.path): \(String(cString: strerror(errno)))")
            }
            try Self.sync(parent.path)
        } catch {
            try? manager.removeItem(at: staging)
            throw error
        }
    }

    /// Writes each new database file, side by side (one thread each), so the time one waits for
    /// its sync overlaps with the other's work.
    private static func writeDatabases(_ files: [(path: String, schema: Migrations.Schema)]) throws(StoreError) {
        let outcomes = Parallel.map(files.count) { index in
            Result { () throws(StoreError) in try writeDatabase(at: files[index].path, schema: files[index].schema) }
        }
        for outcome in outcomes { try outcome.get() }
    }

    /// A new database file with `schema`, in WAL mode, synced: the file the migrations produce,
    /// built with escrow and written in one piece (`Migrations.newDatabaseFile`).
    private static func writeDatabase(at path: String, schema: Migrations.Schema) throws(StoreError) {
        let image = try Migrations.newDatabaseFile(schema)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(message: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var written = 0
        while written < image.count {
            let result = image.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + written }, $0.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                throw StoreError(message: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += result
        }
        guard fsync(descriptor) == 0 else {
            throw StoreError(message: "cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// fsync of a file or folder.
    private static func sync(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw StoreError(message: "cannot sync \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
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
            throw StoreError.notAnEscrowHome(url.path)
        }
    }
}
