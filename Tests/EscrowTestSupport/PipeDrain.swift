import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reads a child process's pipe on a thread of its own, so the pipe never fills and stalls the
/// child, and hands over what was read once the child has exited.
///
/// The end of a pipe can come long after its writer exited: a process another test starts at the
/// same moment may inherit a copy of the write end (spawning races with a pipe being made in
/// another thread) and hold it as long as it runs — a compute server for a minute. So the reader
/// waits for the end only a little after the child's exit, then takes what was read: everything
/// the child wrote is in the pipe by then.
///
/// Thread safety: `collected` may be called from any thread, once the child has exited.
public final class PipeDrain: Sendable {
    private let data = Mutex(Data())
    private let ended = DispatchSemaphore(value: 0)

    /// Starts reading `handle` until its end.
    public init(_ handle: FileHandle) {
        // Not a Dispatch worker: many concurrent runs would exhaust Dispatch's thread pool.
        // read(2) itself, retried on EINTR: FileHandle.availableData traps on an interrupted read.
        Thread.detachNewThread { [self] in
            while true {
                let chunk = PipeRead.chunk(handle)
                if chunk.isEmpty { break }
                data.withLock { $0.append(chunk) }
            }
            ended.signal()
        }
    }

    /// What was read, once the child has exited: at the pipe's end, or after `grace` when
    /// another process still holds its write end.
    public func collected(grace: Duration = .seconds(5)) -> Data {
        let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
        _ = ended.wait(timeout: .now() + seconds)
        return data.withLock { $0 }
    }
}

/// Reading a pipe the way Foundation's `availableData` and `readDataToEndOfFile()` would, but
/// with read(2) retried on EINTR: both trap on an interrupted read (`try!` inside Foundation),
/// and a test process with dozens of children gets interrupted reads (a CI run crashed so, in
/// `DevCertificates`).
public enum PipeRead {
    /// The next bytes from `handle`, blocking until some arrive; empty at the end (or on an error
    /// other than EINTR).
    public static func chunk(_ handle: FileHandle) -> Data {
        withExtendedLifetime(handle) {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count > 0 { return Data(buffer[0..<count]) }
                if count < 0, errno == EINTR { continue }
                return Data()
            }
        }
    }

    /// Everything up to the end of `handle`.
    public static func toEnd(_ handle: FileHandle) -> Data {
        var data = Data()
        while true {
            let chunk = chunk(handle)
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }
}
