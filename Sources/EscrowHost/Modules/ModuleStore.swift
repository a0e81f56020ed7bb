import EscrowCore
import EscrowModules
import EscrowStore
import Foundation

/// The compute modules in the escrow home, content-addressed: `modules/SHA256.wasm`, each file
/// the module's bytes exactly (docs/MODULES.md). A module is checked (`ComputeModule`) before it
/// is kept, and again when it is read back, so a file changed on disk is refused, never run.
///
/// Thread safety: may be shared; a module appears whole or not at all (written, synced, renamed).
public struct ModuleStore: Sendable {
    public let home: EscrowHome
    /// The ids of the functions built into the escrow, which no module may take.
    let reservedIDs: Set<String>
    let cache: ModuleCache

    /// - Parameter catalog: the escrow's built-in functions, whose ids no module may take.
    public init(home: EscrowHome, catalog: FunctionCatalog, cache: ModuleCache = ModuleCache()) {
        self.home = home
        self.reservedIDs = Set(catalog.descriptors.map(\.id))
        self.cache = cache
    }

    /// Checks and keeps a module; keeping one that is kept already changes nothing.
    ///
    /// - Throws: `ModuleError` naming what is wrong with it, or that it could not be written.
    @discardableResult
    public func add(_ bytes: [UInt8]) throws(ModuleError) -> ComputeModule {
        // An app sends its module with every run: one checked already is taken from the cache by
        // its digest (its file written again should it have gone meanwhile).
        if let cached = cache.module(ComputeModule.sha256(of: bytes)) {
            if !FileManager.default.fileExists(atPath: file(cached.sha256).path) { try write(bytes, to: file(cached.sha256)) }
            return cached
        }
        let module = try ComputeModule(bytes: bytes)
        guard !reservedIDs.contains(module.manifest.id) else { throw .reservedID(module.manifest.id) }
        // A file that is missing, or no longer holds these bytes (damaged on disk), is written anew.
        if !keeps(module.sha256) {
            try write(bytes, to: file(module.sha256))
        }
        cache.insert(module)
        return module
    }

    /// The module with this exact digest.
    ///
    /// - Throws: `ModuleError.unknownModule` when the home has none, `.digestMismatch` when its
    ///   file no longer hashes to its name, or what checking it found.
    public func module(_ sha256: String) throws(ModuleError) -> ComputeModule {
        guard Self.isDigest(sha256) else { throw .unknownModule(sha256) }
        let url = file(sha256)
        do {
            return try cache.module(sha256) { () throws(ModuleError) in
                guard let data = FileManager.default.contents(atPath: url.path) else { throw .unknownModule(sha256) }
                return [UInt8](data)
            }
        } catch .digestMismatch(let expected, let actual) {
            throw .damaged(sha256: expected, actual: actual)
        }
    }

    /// Every module kept that checks out, by id then version (`damaged()` lists the others).
    public func list() throws(ModuleError) -> [ComputeModule] {
        try digests().compactMap { digest in try? module(digest) }
            .sorted { ($0.manifest.id, $0.manifest.version, $0.sha256) < ($1.manifest.id, $1.manifest.version, $1.sha256) }
    }

    /// The module files that do not check out (changed on disk, or not a module any more): their
    /// digest and what is wrong. They are never run; `remove` deletes them, `add` rewrites them.
    public func damaged() throws(ModuleError) -> [(sha256: String, problem: ModuleError)] {
        try digests().compactMap { digest -> (sha256: String, problem: ModuleError)? in
            do throws(ModuleError) {
                _ = try module(digest)
                return nil
            } catch {
                return (digest, error)
            }
        }
    }

    /// The module a person names: a digest or its prefix (at least 4 hex digits), or an id when
    /// only one module has it.
    ///
    /// - Throws: `ModuleError.unknownModule` or `.ambiguousModule`.
    public func resolve(_ reference: String) throws(ModuleError) -> ComputeModule {
        try module(digest(of: reference))
    }

    /// The digest of the module file a person names (a digest, a prefix of at least 4 hex digits,
    /// or the id of one module that checks out), whether or not the file checks out.
    ///
    /// - Throws: `ModuleError.unknownModule` or `.ambiguousModule`.
    public func digest(of reference: String) throws(ModuleError) -> String {
        let lowered = reference.lowercased()
        let byDigest = lowered.count >= 4 && lowered.allSatisfy(\.isHexDigit) ? try digests().filter { $0.hasPrefix(lowered) } : []
        if byDigest.count == 1 { return byDigest[0] }
        if byDigest.count > 1 { throw .ambiguousModule(reference, matches: byDigest.map { String($0.prefix(12)) }) }
        let byID = try list().filter { $0.manifest.id == reference }
        if byID.count == 1 { return byID[0].sha256 }
        if byID.count > 1 { throw .ambiguousModule(reference, matches: byID.map { String($0.sha256.prefix(12)) }) }
        throw .unknownModule(reference)
    }

    /// Deletes a module's file, also one that no longer checks out. Flows that run it stay; their
    /// runs need it again (from the app, or `escrow modules add`).
    ///
    /// - Returns: the digest deleted, and the module when its file still checked out.
    /// - Throws: `ModuleError` when it is unknown or cannot be deleted.
    @discardableResult
    public func remove(_ reference: String) throws(ModuleError) -> (sha256: String, module: ComputeModule?) {
        let digest = try digest(of: reference)
        let module = try? module(digest)
        do {
            try FileManager.default.removeItem(at: file(digest))
        } catch {
            throw .storeFailed("cannot delete \(file(digest).path): \(error.localizedDescription)")
        }
        return (digest, module)
    }

    /// Whether the home keeps the module with this digest: its file holds bytes of that digest.
    public func keeps(_ sha256: String) -> Bool {
        guard Self.isDigest(sha256), let data = FileManager.default.contents(atPath: file(sha256).path) else { return false }
        return ComputeModule.sha256(of: [UInt8](data)) == sha256
    }

    // MARK: Files

    private func file(_ sha256: String) -> URL { home.modulesURL.appendingPathComponent("\(sha256).wasm") }

    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    private func digests() throws(ModuleError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: home.modulesURL.path)
        } catch {
            if !FileManager.default.fileExists(atPath: home.modulesURL.path) { return [] }
            throw .storeFailed("cannot read \(home.modulesURL.path): \(error.localizedDescription)")
        }
        return names.compactMap { name in
            guard name.hasSuffix(".wasm") else { return nil }
            let digest = String(name.dropLast(5))
            return Self.isDigest(digest) ? digest : nil
        }.sorted()
    }

    private func write(_ bytes: [UInt8], to url: URL) throws(ModuleError) {
        let folder = home.modulesURL.path
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw .storeFailed("cannot create \(folder): \(String(cString: strerror(errno)))")
        }
        let staging = "\(url.path).\(UUID().uuidString).partial"
        let descriptor = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .storeFailed("cannot create \(staging): \(String(cString: strerror(errno)))") }
        defer { unlink(staging) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress?.advanced(by: written), $0.count - written) }
            guard count > 0 else { break }
            written += count
        }
        let synced = written == bytes.count && fsync(descriptor) == 0
        let reason = String(cString: strerror(errno))
        close(descriptor)
        guard synced else { throw .storeFailed("cannot write \(url.path): \(reason)") }
        guard rename(staging, url.path) == 0 else {
            throw .storeFailed("cannot move the module into \(url.path): \(String(cString: strerror(errno)))")
        }
    }
}

/// The escrow home's limits on one module run (`modules.fuel`, `modules.memory-mb`,
/// `modules.wall-time-ms`; docs/MODULES.md, "Limits").
public enum ModuleSettings {
    public static let fuelName = "modules.fuel"
    public static let memoryName = "modules.memory-mb"
    public static let wallTimeName = "modules.wall-time-ms"

    /// The limits stored on `state` (defaults for those never set).
    ///
    /// - Throws: `StoreError` when the database cannot be read, `SettingError` when a
    ///   stored value is not one the setting takes.
    public static func read(_ state: StateDatabase) throws -> ModuleLimits {
        var limits = ModuleLimits.default
        if let value = try state.setting(fuelName) { limits.fuel = try fuel(value) }
        if let value = try state.setting(memoryName) { limits.memoryBytes = try memoryMegabytes(value) * 1024 * 1024 }
        if let value = try state.setting(wallTimeName) { limits.wallTime = .milliseconds(try wallTimeMilliseconds(value)) }
        return limits
    }

    public static func fuel(_ value: String) throws(SettingError) -> UInt64 {
        UInt64(try whole(value, in: Int(ModuleLimits.fuelRange.lowerBound)...Int(ModuleLimits.fuelRange.upperBound),
                         name: fuelName, unit: "instructions"))
    }

    public static func memoryMegabytes(_ value: String) throws(SettingError) -> Int {
        try whole(value, in: ModuleLimits.memoryMegabytesRange, name: memoryName, unit: "MiB")
    }

    public static func wallTimeMilliseconds(_ value: String) throws(SettingError) -> Int {
        try whole(value, in: ModuleLimits.wallTimeMillisecondsRange, name: wallTimeName, unit: "milliseconds")
    }

    /// A whole number of `unit` within `range`, as the setting `name` takes.
    private static func whole(_ value: String, in range: ClosedRange<Int>, name: String, unit: String) throws(SettingError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw SettingError(name: name, value: value, takes: "a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
