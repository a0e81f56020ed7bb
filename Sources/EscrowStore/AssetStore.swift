import Crypto
import Foundation

/// Escrow-owned, content-addressed storage for media files: `assets/ab/abcdef…` where the name is
/// the SHA-256 of the content. A file is written once; storing the same content again is a no-op.
public struct AssetStore: Sendable {
    public let root: URL

    public init(root: URL) { self.root = root }

    /// The hex SHA-256 of `bytes`: the asset id.
    public static func assetID(of bytes: [UInt8]) -> String {
        Hex.encode(SHA256.hash(data: bytes))
    }

    /// The asset id of a file's content, read in chunks (a large video is never held in memory).
    ///
    /// - Returns: the id and the file's size in bytes.
    public static func assetID(ofFileAt url: URL) throws(StoreError) -> (id: String, byteCount: Int) {
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            var hash = SHA256()
            var count = 0
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hash.update(data: chunk)
                count += chunk.count
            }
            return (Hex.encode(hash.finalize()), count)
        } catch {
            throw StoreError(message: "cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    /// Where the asset with this id lives.
    public func url(for assetID: String) -> URL {
        root.appendingPathComponent(String(assetID.prefix(2)), isDirectory: true).appendingPathComponent(assetID)
    }

    /// Whether the asset is stored.
    public func contains(_ assetID: String) -> Bool {
        FileManager.default.fileExists(atPath: url(for: assetID).path)
    }

    /// Stores `bytes` under `assetID` (write to a temporary name, then rename, so a crash never
    /// leaves a partial asset under its final name).
    ///
    /// - Returns: true when the file was written, false when it was already there.
    @discardableResult
    public func store(_ bytes: [UInt8], as assetID: String) throws(StoreError) -> Bool {
        let destination = url(for: assetID)
        let manager = FileManager.default
        if manager.fileExists(atPath: destination.path) { return false }
        do {
            try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(assetID).partial")
            try Data(bytes).write(to: temporary)
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
            try manager.moveItem(at: temporary, to: destination)
            return true
        } catch {
            throw StoreError(message: "cannot store asset \(assetID) in \(root.path): \(error.localizedDescription)")
        }
    }

    /// Stores a copy of the file at `source` under `assetID` (copied by the file system to a
    /// temporary name, then renamed).
    ///
    /// - Returns: true when the file was written, false when it was already there.
    @discardableResult
    public func store(fileAt source: URL, as assetID: String) throws(StoreError) -> Bool {
        let destination = url(for: assetID)
        let manager = FileManager.default
        if manager.fileExists(atPath: destination.path) { return false }
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(assetID).partial")
        do {
            try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try? manager.removeItem(at: temporary)
            try manager.copyItem(at: source, to: temporary)
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
            try manager.moveItem(at: temporary, to: destination)
            return true
        } catch {
            try? manager.removeItem(at: temporary)
            throw StoreError(message: "cannot copy \(source.path) into the escrow's asset storage \(root.path): \(error.localizedDescription)")
        }
    }

    /// Removes an asset (used to undo a failed import).
    public func remove(_ assetID: String) {
        try? FileManager.default.removeItem(at: url(for: assetID))
    }

    /// The bytes of an asset.
    ///
    /// - Throws: `StoreError` when the asset is missing (the escrow home was altered by hand).
    public func bytes(of assetID: String) throws(StoreError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: url(for: assetID).path) else {
            throw StoreError(message: "asset \(assetID) is missing from \(root.path); re-import the photo folder to restore it")
        }
        return [UInt8](data)
    }
}
