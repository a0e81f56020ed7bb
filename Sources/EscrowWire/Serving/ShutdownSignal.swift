import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Waits for SIGTERM or SIGINT, for servers that shut down gracefully.
public enum ShutdownSignal {
    /// Returns when the process receives SIGTERM or SIGINT (both are then handled here, not by
    /// the default action).
    public static func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = SignalSources(continuation)
            once.install()
        }
    }

    /// Dispatch sources for the two signals; the first one resumes the waiter.
    private final class SignalSources: @unchecked Sendable {
        // Touched only on `queue`.
        private var continuation: CheckedContinuation<Void, Never>?
        private var sources: [any DispatchSourceSignal] = []
        private let queue = DispatchQueue(label: "escrow-compute.signals")

        init(_ continuation: CheckedContinuation<Void, Never>) {
            self.continuation = continuation
        }

        func install() {
            queue.sync {
                for number in [SIGTERM, SIGINT] {
                    signal(number, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                    source.setEventHandler { [self] in
                        continuation?.resume()
                        continuation = nil
                    }
                    source.resume()
                    sources.append(source)
                }
            }
        }
    }
}
