import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing a small file so that after a crash it holds either its old or its new bytes, and the
/// new ones once `write` returns: written aside, fsynced, renamed into place, folder fsynced.
package enum DurableFile {
    /// Writes `bytes` to `path` (mode 0600).
    ///
    /// - Parameter replacing: rename over an existing file (true), or write `path` itself, which
    ///   must not exist yet (false: the caller links it into place).
    package static func write(_ bytes: [UInt8], to path: String, replacing: Bool = true) throws(WitnessError) {
        let target = replacing ? path + ".tmp" : path
        let descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (replacing ? 0 : O_EXCL), 0o600)
        guard descriptor >= 0 else { throw .storage("cannot write \(target): \(String(cString: strerror(errno)))") }
        var written = 0
        let failure: Int32? = bytes.withUnsafeBytes { buffer -> Int32? in
            while written < buffer.count {
                let result = Glibc.write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += result
            }
            return fsync(descriptor) == 0 ? nil : errno
        }
        close(descriptor)
        if let failure { throw .storage("cannot write \(target): \(String(cString: strerror(failure)))") }
        guard replacing else { return }
        guard rename(target, path) == 0 else { throw .storage("cannot replace \(path): \(String(cString: strerror(errno)))") }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}
