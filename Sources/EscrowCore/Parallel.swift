import Dispatch
import Synchronization

/// Work split over the processors.
public enum Parallel {
    /// `body(0)`, `body(1)`, … `body(count - 1)`, in that order. With `concurrently` (and more
    /// than one index) the calls run on several threads at once (`concurrentPerform`), otherwise
    /// one after the other on the calling thread.
    public static func map<Result: Sendable>(
        _ count: Int, concurrently: Bool = true, _ body: @Sendable (Int) -> Result
    ) -> [Result] {
        guard concurrently, count > 1 else { return (0..<count).map(body) }
        let results = Mutex([Result?](repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let result = body(index)
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0.compactMap { $0 } }
    }
}
