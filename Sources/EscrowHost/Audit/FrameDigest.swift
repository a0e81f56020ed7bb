import Crypto
import EscrowCore
import Foundation

/// SHA-256 of a frame's canonical encoding: what the audit entry records of the output an app
/// received, so the individual can later prove which output went out (docs/AUDIT.md, "Canonical
/// encoding").
enum FrameDigest {
    /// The digest of `frame`. Each column's cells are hashed on their own (the columns of a
    /// large frame in parallel) and the frame's encoding holds the columns' digests. Binary cells
    /// enter by their length and SHA-256, taken from `known` for a picture compute() passed
    /// through unchanged and computed otherwise (over the processors when there are megabytes).
    static func sha256(_ frame: Frame, known: KnownDigests = .none) -> String {
        let columns = frame.columns
        let digests = Parallel.map(columns.count, concurrently: frame.rowCount * columns.count >= parallelCells) {
            cellsDigest(columns[$0], known: known)
        }
        var encoder = CanonicalEncoder()
        encoder.append("escrow.frame.v2")
        encoder.append(Int64(columns.count))
        encoder.append(Int64(frame.rowCount))
        for (column, digest) in zip(columns, digests) {
            encoder.append(column.name)
            encoder.append(column.type.rawValue)
            encoder.append(digest: digest)
        }
        return encoder.sha256()
    }

    /// From this many cells on, the columns are hashed in parallel.
    static let parallelCells = 8192

    /// The SHA-256 of one column's cells in row order, straight from the typed storage; a null
    /// encodes as the tag 0x00 whatever the type.
    private static func cellsDigest(_ column: Column, known: KnownDigests) -> [UInt8] {
        var encoder = CanonicalEncoder()
        switch column.values {
        case .int64(let values): encode(values, column, &encoder) { $0.append($1) }
        case .double(let values): encode(values, column, &encoder) { $0.append($1) }
        case .string(let values): encode(values, column, &encoder) { $0.append(text: $1) }
        case .bool(let values): encode(values, column, &encoder) { $0.append(Int64($1 ? 1 : 0)) }
        case .bytes(let values):
            let digests = cellDigests(values, nulls: column.nulls, known: known)
            encode(Array(values.indices), column, &encoder) { encoder, row in
                encoder.append(byteCount: values[row].count, sha256: digests[row * 32 ..< row * 32 + 32])
            }
        }
        return encoder.digest()
    }

    private static func encode<Value>(_ values: [Value], _ column: Column, _ encoder: inout CanonicalEncoder,
                                      _ append: (inout CanonicalEncoder, Value) -> Void) {
        // By index through the buffer: the cells are read where they are, not copied (and, for
        // strings, retained and released) one by one.
        values.withUnsafeBufferPointer { cells in
            if column.nulls.isEmpty {
                for row in cells.indices { append(&encoder, cells[row]) }
            } else {
                for row in cells.indices {
                    if column.nulls[row] { encoder.append(nil as String?) } else { append(&encoder, cells[row]) }
                }
            }
        }
    }

    /// Below this many bytes to hash, one thread does it.
    static let parallelThreshold = 4 << 20

    /// The SHA-256 of every cell, 32 bytes each, one after the other (zeros for a null).
    private static func cellDigests(_ values: [[UInt8]], nulls: [Bool], known: KnownDigests) -> [UInt8] {
        var digests = [UInt8](repeating: 0, count: values.count * 32)
        var unknown: [Int] = []
        var unknownBytes = 0
        for row in values.indices where nulls.isEmpty || !nulls[row] {
            if let digest = known.sha256(of: values[row]) {
                digests.replaceSubrange(row * 32 ..< row * 32 + 32, with: digest)
            } else {
                unknown.append(row)
                unknownBytes += values[row].count
            }
        }
        guard !unknown.isEmpty else { return digests }
        let workers = unknownBytes < parallelThreshold ? 1 : min(ProcessInfo.processInfo.activeProcessorCount, unknown.count)
        // Worker w hashes the unknown cells w, w + workers, …; the shares are put in place after.
        let unknownRows = unknown
        let shares = Parallel.map(workers) { worker in
            var share: [UInt8] = []
            share.reserveCapacity((unknownRows.count / workers + 1) * 32)
            for index in stride(from: worker, to: unknownRows.count, by: workers) {
                share.append(contentsOf: SHA256.hash(data: values[unknownRows[index]]))
            }
            return share
        }
        for (worker, share) in shares.enumerated() {
            for (position, index) in stride(from: worker, to: unknown.count, by: workers).enumerated() {
                let row = unknown[index]
                digests.replaceSubrange(row * 32 ..< row * 32 + 32, with: share[position * 32 ..< position * 32 + 32])
            }
        }
        return digests
    }
}
