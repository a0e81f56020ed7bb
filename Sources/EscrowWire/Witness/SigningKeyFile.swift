import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An Ed25519 signing key kept in a file of its own: the raw 32-byte key as 64 hex digits and a
/// newline, mode 0600. The escrow host's audit key and a witness's key are such files.
///
/// Thread safety: `loadOrCreate` may race with itself in other processes; exactly one key is
/// created (written aside, then linked into place, which fails when the file already exists).
public enum SigningKeyFile {
    /// The key in `path`, created (mode 0600) when there is no such file.
    ///
    /// - Throws: `WitnessError.storage` when the file cannot be read, created, or holds no key.
    public static func loadOrCreate(at path: String) throws(WitnessError) -> Curve25519.Signing.PrivateKey {
        if !FileManager.default.fileExists(atPath: path) { try create(at: path) }
        return try load(at: path)
    }

    /// The key in `path`.
    ///
    /// - Throws: `WitnessError.storage` when the file cannot be read or holds no key.
    public static func load(at path: String) throws(WitnessError) -> Curve25519.Signing.PrivateKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .storage("cannot read the signing key \(path); check its permissions")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = WitnessHex.decode(text), bytes.count == 32,
              let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes) else {
            throw .storage("\(path) does not hold an Ed25519 key (64 lower-case hex digits); move it aside and a new key is made")
        }
        return key
    }

    private static func create(at path: String) throws(WitnessError) {
        let text = WitnessHex.encode(Curve25519.Signing.PrivateKey().rawRepresentation) + "\n"
        let aside = path + ".new-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try DurableFile.write(Array(text.utf8), to: aside, replacing: false)
        defer { unlink(aside) }
        if link(aside, path) != 0, errno != EEXIST {
            throw .storage("cannot create the signing key \(path): \(String(cString: strerror(errno)))")
        }
    }
}
