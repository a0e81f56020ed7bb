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
            withExtendedLifetime(handle) {
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                    if count > 0 {
                        data.withLock { $0.append(contentsOf: buffer[0..<count]) }
                    } else if count < 0, errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
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
