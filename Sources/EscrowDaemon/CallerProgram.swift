import Crypto
import EscrowCore
import EscrowStore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension CallerProgram {
    /// The program process `pid` runs.
    ///
    /// Digests are cached per executable file (device, inode, size, modification and change
    /// times), so a program is hashed once per escrow process.
    ///
    /// - Throws: `CallerProgramError` when the process is gone or its executable cannot be read
    ///   (for example a process that made itself non-dumpable).
    public static func of(pid: pid_t) throws(CallerProgramError) -> CallerProgram {
        let link = "/proc/\(pid)/exe"
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(link, &buffer, buffer.count - 1)
        guard length > 0 else { throw CallerProgramError(pid: pid, reason: String(cString: strerror(errno))) }
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)

        let descriptor = open(link, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CallerProgramError(pid: pid, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw CallerProgramError(pid: pid, reason: String(cString: strerror(errno))) }
        let file = FileKey(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
                           modified: status.st_mtim.tv_sec &* 1_000_000_000 &+ status.st_mtim.tv_nsec,
                           changed: status.st_ctim.tv_sec &* 1_000_000_000 &+ status.st_ctim.tv_nsec)
        if let digest = digests.withLock({ $0[file] }) { return CallerProgram(path: path, sha256: digest) }

        var hasher = SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CallerProgramError(pid: pid, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            chunk.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        let digest = Hex.encode(hasher.finalize())
        digests.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[file] = digest
        }
        return CallerProgram(path: path, sha256: digest)
    }

    private struct FileKey: Hashable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int
        let changed: Int
    }

    private static let digests = Mutex<[FileKey: String]>([:])
}

/// The daemon could not tell which program a process runs.
public struct CallerProgramError: Error, Sendable, Equatable, CustomStringConvertible {
    public let pid: pid_t
    public let reason: String

    public var description: String {
        "the escrow cannot tell which program process \(pid) runs (\(reason)); an app must run as an ordinary "
            + "process of your user, whose executable the escrow can read"
    }
}
