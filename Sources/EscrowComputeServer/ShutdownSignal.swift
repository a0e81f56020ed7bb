import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Waits for SIGTERM or SIGINT.
enum ShutdownSignal {
    static func wait() async {
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
