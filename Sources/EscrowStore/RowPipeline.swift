import Dispatch
import Foundation
import Synchronization

/// Turns records into statement parameters on a second thread while the calling thread inserts
/// the rows encoded before: an import keeps two processors busy, one in SQLite and one
/// preparing its next rows (JSON columns, timestamps, text), instead of doing one after the
/// other.
enum RowPipeline {
    /// Rows per batch: large enough that handing a batch over costs nothing next to encoding it.
    /// The first batches are smaller (`firstBatchSize`, doubling up to this), so the first insert
    /// waits for a few rows, not for a whole batch.
    static let batchSize = 256
    static let firstBatchSize = 16
    /// Batches encoded ahead of the inserts at most, so a large import does not hold all its
    /// rows twice.
    static let batchesAhead = 4

    /// Rows `0..<rows` as consecutive batches: `firstBatchSize` rows, then twice as many each
    /// time up to `batchSize`.
    static func batches(rows: Int) -> [Range<Int>] {
        var batches: [Range<Int>] = []
        var start = 0
        var size = firstBatchSize
        while start < rows {
            batches.append(start..<min(rows, start + size))
            start += size
            size = min(batchSize, 2 * size)
        }
        return batches
    }

    /// Calls `encode` for each of `batches(rows:)` and `insert` with each result, in order. With
    /// more than one batch and more than one processor, `encode` runs on its own thread, up to
    /// `batchesAhead` batches ahead of `insert`, which runs on the calling thread. When `insert`
    /// throws, the encoding thread stops and is waited for before the error is rethrown.
    static func run(
        rows: Int,
        encode: @escaping @Sendable (Range<Int>) -> ParameterRows,
        insert: (ParameterRows) throws(StoreError) -> Void
    ) throws(StoreError) {
        let batches = batches(rows: rows)
        let count = batches.count
        guard count > 1, ProcessInfo.processInfo.activeProcessorCount > 1 else {
            for batch in batches { try insert(encode(batch)) }
            return
        }
        let handoff = Handoff(count: count)
        let encoder = Thread {
            for batch in 0..<count {
                handoff.space.wait()
                if handoff.stopped.load(ordering: .acquiring) { break }
                let encoded = encode(batches[batch])
                handoff.slots.withLock { $0[batch] = encoded }
                handoff.ready.signal()
            }
            handoff.finished.signal()
        }
        encoder.name = "escrow-row-encoder"
        encoder.start()
        defer {
            handoff.stopped.store(true, ordering: .releasing)
            handoff.space.signal()
            handoff.finished.wait()
        }
        for batch in 0..<count {
            handoff.ready.wait()
            let encoded = handoff.slots.withLock { slots in
                defer { slots[batch] = nil }
                return slots[batch]
            }
            handoff.space.signal()
            guard let encoded else { throw StoreError(message: "internal error: batch \(batch) of an import was not encoded") }
            try insert(encoded)
        }
    }
}

/// What the encoding thread and the inserting thread of one `RowPipeline.run` share.
private final class Handoff: Sendable {
    let slots: Mutex<[ParameterRows?]>
    /// Signalled once per encoded batch.
    let ready = DispatchSemaphore(value: 0)
    /// Counts the batches the encoder may still encode ahead. Created at 0 and raised: libdispatch
    /// refuses to free a semaphore whose count ended below the value it was created with, which
    /// is where an import that fails leaves this one.
    let space = DispatchSemaphore(value: 0)
    /// Signalled when the encoding thread is done.
    let finished = DispatchSemaphore(value: 0)
    /// Set when the inserts are over (done or failed): the encoder stops at its next batch.
    let stopped = Atomic(false)

    init(count: Int) {
        slots = Mutex([ParameterRows?](repeating: nil, count: count))
        for _ in 0..<RowPipeline.batchesAhead { space.signal() }
    }
}
