import Dispatch
import EscrowCore
import Foundation
import NIOCore

// `Frame` ⇄ the wire bytes of `escrow.v1.Frame`, without a protobuf message in between.
//
// The bytes are the ones SwiftProtobuf writes for `Escrow_V1_Frame(frame)` (fields in number
// order, defaults omitted, numbers packed), so any protobuf library reads them. Going through
// `Escrow_V1_Frame` instead costs four extra passes over a frame's binary cells: into `Data`, into
// the message's serialization, into `Data` again on the other side and back into `[UInt8]`. Here a
// cell is copied once on each side: into the send buffer, and out of the received frame.

/// The wire form of frames.
enum FrameWire {
    /// The sizes the writer needs, computed once.
    struct Layout {
        /// Per column: its message's size, and the payload size of its packed values (0 for
        /// strings and bytes, which are not packed).
        fileprivate var columns: [(message: Int, packed: Int)] = []
        /// The size of the whole `Frame` message.
        var size = 0
    }

    static func layout(of frame: Frame) -> Layout {
        var layout = Layout()
        layout.columns.reserveCapacity(frame.columns.count)
        for column in frame.columns {
            var size = 0
            if !column.name.isEmpty { size += WireSize.field(1, length: column.name.utf8.count) }
            size += 1 + WireSize.varint(UInt64(wireType(column.type).rawValue))
            if !column.nulls.isEmpty { size += WireSize.field(3, length: NullBitmap.byteCount(rows: column.nulls.count)) }
            var packed = 0
            switch column.values {
            case .int64(let values):
                packed = values.reduce(0) { $0 + WireSize.varint(ZigZag.encode($1)) }
                if !values.isEmpty { size += WireSize.field(4, length: packed) }
            case .double(let values):
                packed = 8 * values.count
                if !values.isEmpty { size += WireSize.field(5, length: packed) }
            case .string(let values):
                size += values.reduce(0) { $0 + WireSize.field(6, length: $1.utf8.count) }
            case .bytes(let values):
                size += values.reduce(0) { $0 + WireSize.field(7, length: $1.count) }
            case .bool(let values):
                packed = values.count
                if !values.isEmpty { size += WireSize.field(8, length: packed) }
            }
            layout.columns.append((size, packed))
            layout.size += WireSize.field(1, length: size)
        }
        if frame.rowCount != 0 { layout.size += 1 + WireSize.varint(UInt64(frame.rowCount)) }
        return layout
    }

    /// Writes `frame`'s message (`layout.size` bytes, no tag or length of its own).
    static func write(_ frame: Frame, layout: Layout, to writer: inout WireWriter) {
        for (column, sizes) in zip(frame.columns, layout.columns) {
            writer.tag(1, .lengthDelimited)
            writer.varint(UInt64(sizes.message))
            if !column.name.isEmpty {
                var name = column.name
                name.withUTF8 { writer.field(1, bytes: UnsafeRawBufferPointer($0)) }
            }
            writer.tag(2, .varint)
            writer.varint(UInt64(wireType(column.type).rawValue))
            if !column.nulls.isEmpty {
                NullBitmap.encode(column.nulls).withUnsafeBytes { writer.field(3, bytes: $0) }
            }
            switch column.values {
            case .int64(let values) where !values.isEmpty:
                writer.tag(4, .lengthDelimited)
                writer.varint(UInt64(sizes.packed))
                for value in values { writer.varint(ZigZag.encode(value)) }
            case .double(let values) where !values.isEmpty:
                writer.tag(5, .lengthDelimited)
                writer.varint(UInt64(sizes.packed))
                for value in values { writer.fixed64(value.bitPattern) }
            case .string(let values):
                for value in values {
                    var value = value
                    value.withUTF8 { writer.field(6, bytes: UnsafeRawBufferPointer($0)) }
                }
            case .bytes(let values):
                writeCells(values, to: &writer)
            case .bool(let values) where !values.isEmpty:
                writer.tag(8, .lengthDelimited)
                writer.varint(UInt64(sizes.packed))
                for value in values { writer.byte(value ? 1 : 0) }
            case .int64, .double, .bool:
                break
            }
        }
        if frame.rowCount != 0 {
            writer.tag(2, .varint)
            writer.varint(UInt64(frame.rowCount))
        }
    }

    /// `frame`'s message as bytes (for tests and tools; the RPC writes into its send buffer).
    static func bytes(_ frame: Frame) -> [UInt8] {
        let layout = layout(of: frame)
        return [UInt8](unsafeUninitializedCapacity: layout.size) { buffer, count in
            var writer = WireWriter(UnsafeMutableRawBufferPointer(buffer))
            write(frame, layout: layout, to: &writer)
            count = writer.position
        }
    }

    /// Reads a `Frame` message from `range` of `bytes`.
    ///
    /// - Returns: the frame, or why it is not a valid frame (`FrameDecodingError`, the same checks
    ///   and messages as `Frame(_: Escrow_V1_Frame)`).
    /// - Throws: `WireFormatError` when the bytes are not the wire form this reader handles
    ///   (malformed, or unusual but legal, such as a known field under another wire type); the
    ///   caller then lets SwiftProtobuf read the message.
    static func read(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) throws(WireFormatError) -> Result<Frame, FrameDecodingError> {
        var reader = WireReader(bytes, range: range)
        var columns: [WireColumn] = []
        var rowCount: UInt64 = 0
        while !reader.isAtEnd {
            let (field, type) = try reader.tag()
            switch (field, type) {
            case (1, .lengthDelimited): columns.append(try column(bytes, range: try reader.lengthDelimited()))
            case (2, .varint): rowCount = try reader.varint()
            case (1, _), (2, _): throw WireFormatError()
            default: try reader.skip(type)
            }
        }
        return Result { () throws(FrameDecodingError) in try Frame(wireColumns: columns, rowCount: rowCount) }
    }

    private static func column(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) throws(WireFormatError) -> WireColumn {
        var reader = WireReader(bytes, range: range)
        var column = WireColumn()
        // Binary cells are located first and copied out at the end, over several threads when
        // they are large.
        var cells: [Range<Int>] = []
        while !reader.isAtEnd {
            let (field, type) = try reader.tag()
            switch (field, type) {
            case (1, .lengthDelimited):
                column.name = try string(bytes, try reader.lengthDelimited())
            case (2, .varint):
                column.type = Int(Int32(truncatingIfNeeded: try reader.varint()))
            case (3, .lengthDelimited):
                column.nullBitmap = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[try reader.lengthDelimited()]))
            case (4, .lengthDelimited):
                var packed = WireReader(bytes, range: try reader.lengthDelimited())
                while !packed.isAtEnd { column.int64s.append(ZigZag.decode(try packed.varint())) }
            case (4, .varint):
                column.int64s.append(ZigZag.decode(try reader.varint()))
            case (5, .lengthDelimited):
                var packed = WireReader(bytes, range: try reader.lengthDelimited())
                while !packed.isAtEnd { column.doubles.append(Double(bitPattern: try packed.fixed64())) }
            case (5, .fixed64):
                column.doubles.append(Double(bitPattern: try reader.fixed64()))
            case (6, .lengthDelimited):
                column.strings.append(try string(bytes, try reader.lengthDelimited()))
            case (7, .lengthDelimited):
                cells.append(try reader.lengthDelimited())
            case (8, .lengthDelimited):
                var packed = WireReader(bytes, range: try reader.lengthDelimited())
                while !packed.isAtEnd { column.bools.append(try packed.varint() != 0) }
            case (8, .varint):
                column.bools.append(try reader.varint() != 0)
            case (1...8, _):
                throw WireFormatError()
            default:
                try reader.skip(type)
            }
        }
        column.bytes = copyCells(cells, from: bytes)
        return column
    }

    // MARK: Binary cells over several threads

    /// From this many bytes of binary cells in a column on, they are copied by several threads.
    /// A frame is encoded before its first byte is sent and decoded after its last arrives, while
    /// the other processors wait; a 16 MB column takes about 2.5 ms on one thread here.
    static let parallelCellBytes = 1 << 20

    /// How many threads copy a column's cells: one per processor, at most 8.
    private static var cellWorkers: Int { min(8, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// Writes `values` as field-7 cells, each with its tag and length.
    private static func writeCells(_ values: [[UInt8]], to writer: inout WireWriter) {
        let offsets = startOffsets(values.lazy.map { WireSize.field(7, length: $0.count) })
        let total = offsets[values.count]
        guard total >= parallelCellBytes, cellWorkers > 1 else {
            for value in values { value.withUnsafeBytes { writer.field(7, bytes: $0) } }
            return
        }
        let region = SharedMemory(mutable: writer.claim(total))
        let runs = balancedRuns(offsets, workers: cellWorkers)
        DispatchQueue.concurrentPerform(iterations: runs.count - 1) { run in
            let cells = runs[run] ..< runs[run + 1]
            var part = WireWriter(UnsafeMutableRawBufferPointer(rebasing: region.mutable[offsets[cells.lowerBound] ..< offsets[cells.upperBound]]))
            for index in cells { values[index].withUnsafeBytes { part.field(7, bytes: $0) } }
        }
    }

    /// The cells at `ranges` of `bytes`, each copied into an array of its own.
    private static func copyCells(_ ranges: [Range<Int>], from bytes: UnsafeRawBufferPointer) -> [[UInt8]] {
        let total = ranges.reduce(0) { $0 + $1.count }
        guard total >= parallelCellBytes, cellWorkers > 1 else {
            return ranges.map { [UInt8](UnsafeRawBufferPointer(rebasing: bytes[$0])) }
        }
        let offsets = startOffsets(ranges.lazy.map(\.count))
        let runs = balancedRuns(offsets, workers: cellWorkers)
        var cells = [[UInt8]](repeating: [], count: ranges.count)
        cells.withUnsafeMutableBufferPointer { output in
            let target = SharedCells(output)
            let source = SharedMemory(bytes)
            DispatchQueue.concurrentPerform(iterations: runs.count - 1) { run in
                for index in runs[run] ..< runs[run + 1] {
                    target.cells[index] = [UInt8](UnsafeRawBufferPointer(rebasing: source.bytes[ranges[index]]))
                }
            }
        }
        return cells
    }

    /// Where each of items of `sizes` starts when they are laid end to end, then the total.
    private static func startOffsets(_ sizes: some Collection<Int>) -> [Int] {
        var offsets = [Int]()
        offsets.reserveCapacity(sizes.count + 1)
        var total = 0
        for size in sizes {
            offsets.append(total)
            total += size
        }
        offsets.append(total)
        return offsets
    }

    /// Boundaries of up to `workers` runs of consecutive cells with about equal bytes, from the
    /// cells' start offsets (`offsets`, one more than the cells, the last being the total).
    private static func balancedRuns(_ offsets: [Int], workers: Int) -> [Int] {
        let cells = offsets.count - 1
        let total = offsets[cells]
        var boundaries = [0]
        var cell = 0
        for worker in 1 ..< workers {
            let goal = total / workers * worker
            while cell < cells, offsets[cell] < goal { cell += 1 }
            if cell > boundaries[boundaries.count - 1], cell < cells { boundaries.append(cell) }
        }
        boundaries.append(cells)
        return boundaries
    }

    /// A string field's bytes as a `String`; invalid UTF-8 is left to SwiftProtobuf to refuse.
    ///
    /// Decoded with repair, then compared with the bytes: equal exactly when nothing was repaired,
    /// that is when they are valid UTF-8. (`String(validating:as:)` is generic and, outside the
    /// standard library, looked up its type metadata on every call: a tenth of reading a small
    /// frame.)
    private static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) throws(WireFormatError) -> String {
        let utf8 = UnsafeRawBufferPointer(rebasing: bytes[range]).assumingMemoryBound(to: UInt8.self)
        var string = String(decoding: utf8, as: UTF8.self)
        let unchanged = string.withUTF8 { decoded in
            guard decoded.count == utf8.count, let decodedStart = decoded.baseAddress, let start = utf8.baseAddress else {
                return decoded.count == utf8.count
            }
            return memcmp(decodedStart, start, utf8.count) == 0
        }
        guard unchanged else { throw WireFormatError() }
        return string
    }

    static func wireType(_ type: ColumnType) -> Escrow_V1_ColumnType {
        switch type {
        case .int64: .int64
        case .double: .double
        case .string: .string
        case .bytes: .bytes
        case .bool: .bool
        }
    }
}

/// Memory that several threads of `FrameWire` read, or write in disjoint parts, during one
/// `concurrentPerform`, which returns only when all of them are done.
private struct SharedMemory: @unchecked Sendable {
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(mutable) }
    let mutable: UnsafeMutableRawBufferPointer

    init(mutable: UnsafeMutableRawBufferPointer) {
        self.mutable = mutable
    }

    init(_ bytes: UnsafeRawBufferPointer) {
        mutable = UnsafeMutableRawBufferPointer(mutating: bytes)
    }
}

/// An array's elements that several threads of `FrameWire` set, each its own indices, during
/// one `concurrentPerform`.
private struct SharedCells: @unchecked Sendable {
    let cells: UnsafeMutableBufferPointer<[UInt8]>

    init(_ cells: UnsafeMutableBufferPointer<[UInt8]>) {
        self.cells = cells
    }
}
