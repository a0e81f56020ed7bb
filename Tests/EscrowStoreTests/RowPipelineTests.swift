@testable import EscrowStore
import Foundation
import Synchronization
import Testing

/// The import pipeline: batches encoded on a second thread, inserted in order on the caller's.
@Suite struct RowPipelineTests {
    static func encode(_ range: Range<Int>) -> ParameterRows {
        var rows = ParameterRows(rows: range.count, parametersPerRow: 1, bytesPerRow: 8)
        for index in range {
            rows.set(integer: Int64(index), at: 1)
            rows.endRow()
        }
        return rows
    }

    @Test(arguments: [0, 1, RowPipeline.batchSize, RowPipeline.batchSize + 1, 50 * RowPipeline.batchSize - 3])
    func everyRowIsEncodedOnceAndInsertedInOrder(rows: Int) throws {
        let encoded = Mutex<[Range<Int>]>([])
        var inserted: [Int] = []
        try RowPipeline.run(rows: rows) { range in
            encoded.withLock { $0.append(range) }
            return Self.encode(range)
        } insert: { batch in
            inserted.append(batch.rowCount)
        }
        let ranges = encoded.withLock { $0 }
        #expect(ranges.flatMap { Array($0) } == Array(0..<rows))
        #expect(ranges.allSatisfy { $0.count <= RowPipeline.batchSize })
        #expect(inserted == ranges.map(\.count))
    }

    @Test func batchesStartSmallThenDoubleUpToTheBatchSize() {
        #expect(RowPipeline.batches(rows: 0).isEmpty)
        #expect(RowPipeline.batches(rows: 5) == [0..<5])
        let batches = RowPipeline.batches(rows: 5000)
        #expect(batches.map(\.count).prefix(6) == [16, 32, 64, 128, 256, 256])
        #expect(batches.flatMap { Array($0) } == Array(0..<5000))
    }

    @Test func aFailedInsertStopsTheEncoderAndIsRethrown() {
        let encoded = Atomic(0)
        var inserted = 0
        #expect(throws: StoreError(message: "refused")) {
            try RowPipeline.run(rows: 1000 * RowPipeline.batchSize) { range in
                encoded.add(1, ordering: .relaxed)
                return Self.encode(range)
            } insert: { (_) throws(StoreError) in
                inserted += 1
                guard inserted == 3 else { return }
                // Fail once the encoder is as far ahead as it may go: it waits for room then.
                while encoded.load(ordering: .relaxed) < 3 + RowPipeline.batchesAhead { usleep(100) }
                throw StoreError(message: "refused")
            }
        }
        #expect(inserted == 3)
        // The encoder went no further than `batchesAhead` batches ahead and has stopped.
        #expect(encoded.load(ordering: .relaxed) == 3 + RowPipeline.batchesAhead)
    }
}
