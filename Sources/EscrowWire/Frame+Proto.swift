import EscrowCore
import Foundation
import SwiftProtobuf

// Conversion between `Frame` and its wire form, `Escrow_V1_Frame` (Proto/escrow.proto).
//
// The RPC moves frames with `FrameWire` (no message object in between); these conversions are for
// code that holds SwiftProtobuf messages (the decoder's general path, tools, other transports).
// Both share the checks below.
//
// Encoding cannot fail: every `Frame` has a wire form. Decoding checks everything a peer could get
// wrong and throws `FrameDecodingError` instead of trapping, so a hostile or buggy peer cannot
// crash the process that reads its frames.

extension Escrow_V1_Frame {
    /// The wire form of `frame`.
    ///
    /// Numbers, booleans and text are handed over as arrays (copy-on-write, no copy of the values);
    /// each bytes cell is copied once into a `Data`. Nulls become a bitmap, empty when the column
    /// has none.
    ///
    /// Thread safety: a pure function of its argument.
    public init(_ frame: Frame) {
        self.init()
        rowCount = UInt64(frame.rowCount)
        columns = frame.columns.map(Escrow_V1_Column.init)
    }
}

extension Escrow_V1_Column {
    /// The wire form of `column`.
    init(_ column: Column) {
        self.init()
        name = column.name
        type = FrameWire.wireType(column.type)
        switch column.values {
        case .int64(let values): int64Values = values
        case .double(let values): doubleValues = values
        case .string(let values): stringValues = values
        case .bytes(let values): bytesValues = values.map { Data($0) }
        case .bool(let values): boolValues = values
        }
        nullBitmap = Data(NullBitmap.encode(column.nulls))
    }
}

extension Frame {
    /// The frame a peer sent, after checking that it is well formed.
    ///
    /// Checks, column by column: the type is one of the five known types; only that type's value
    /// array is set; it holds exactly `row_count` values; the null bitmap is empty or
    /// `ceil(row_count / 8)` bytes with the unused bits of its last byte clear; the name is not
    /// used by an earlier column. A frame without columns must have `row_count` 0.
    ///
    /// - Parameter proto: a decoded `Escrow_V1_Frame`, typically from the network.
    /// - Throws: `FrameDecodingError` describing the first problem found.
    ///
    /// Thread safety: a pure function of its argument.
    public init(_ proto: Escrow_V1_Frame) throws(FrameDecodingError) {
        try self.init(wireColumns: proto.columns.map(WireColumn.init), rowCount: proto.rowCount)
    }

    /// The frame made of columns as read from the wire (by SwiftProtobuf or by `FrameWire`),
    /// with the checks described at `init(_: Escrow_V1_Frame)`.
    init(wireColumns: [WireColumn], rowCount: UInt64) throws(FrameDecodingError) {
        if wireColumns.isEmpty {
            guard rowCount == 0 else { throw .rowsWithoutColumns(rowCount: rowCount) }
            self = .empty
            return
        }
        var columns: [Column] = []
        columns.reserveCapacity(wireColumns.count)
        for (index, wire) in wireColumns.enumerated() {
            columns.append(try Column(wire, index: index, rowCount: rowCount))
        }
        do {
            try self.init(columns: columns)
        } catch .duplicateColumn(let name) {
            throw .duplicateColumn(name)
        } catch {
            throw .rejected(error)
        }
    }
}

/// A column as read from the wire, before it is checked: every value array of the message, so a
/// column setting another type's values can be told apart.
struct WireColumn {
    var name = ""
    /// The `ColumnType` enum's raw value (0 when unset; proto3 enums keep values they do not know).
    var type = 0
    var nullBitmap: [UInt8] = []
    var int64s: [Int64] = []
    var doubles: [Double] = []
    var strings: [String] = []
    var bytes: [[UInt8]] = []
    var bools: [Bool] = []

    init() {}

    /// How many values the message gave in the array of `type`.
    func valueCount(_ type: ColumnType) -> Int {
        switch type {
        case .int64: int64s.count
        case .double: doubles.count
        case .string: strings.count
        case .bytes: bytes.count
        case .bool: bools.count
        }
    }

    /// The message field holding the values of `type`.
    static func field(_ type: ColumnType) -> String {
        switch type {
        case .int64: "int64_values"
        case .double: "double_values"
        case .string: "string_values"
        case .bytes: "bytes_values"
        case .bool: "bool_values"
        }
    }

    init(_ proto: Escrow_V1_Column) {
        name = proto.name
        type = proto.type.rawValue
        nullBitmap = [UInt8](proto.nullBitmap)
        int64s = proto.int64Values
        doubles = proto.doubleValues
        strings = proto.stringValues
        bytes = proto.bytesValues.map { [UInt8]($0) }
        bools = proto.boolValues
    }
}

extension Column {
    /// The column a peer sent, checked against the frame's `rowCount`.
    init(_ wire: WireColumn, index: Int, rowCount: UInt64) throws(FrameDecodingError) {
        let name = wire.name
        let type: ColumnType
        switch Escrow_V1_ColumnType(rawValue: wire.type) {
        case .int64: type = .int64
        case .double: type = .double
        case .string: type = .string
        case .bytes: type = .bytes
        case .bool: type = .bool
        case .unspecified, nil: throw .missingType(column: name, index: index)
        case .UNRECOGNIZED(let raw): throw .unknownType(column: name, index: index, rawValue: raw)
        }

        for other in ColumnType.allCases where other != type && wire.valueCount(other) > 0 {
            throw .foreignValues(column: name, type: type, field: WireColumn.field(other))
        }
        guard UInt64(wire.valueCount(type)) == rowCount else {
            throw .valueCount(column: name, type: type, expected: rowCount, actual: wire.valueCount(type))
        }
        // From here on `rowCount` equals an in-memory array's count, so it fits in an `Int`.
        let rows = Int(rowCount)

        let values: ColumnValues
        switch type {
        case .int64: values = .int64(wire.int64s)
        case .double: values = .double(wire.doubles)
        case .string: values = .string(wire.strings)
        case .bytes: values = .bytes(wire.bytes)
        case .bool: values = .bool(wire.bools)
        }
        let nulls = try NullBitmap.decode(wire.nullBitmap, rows: rows, column: name)
        self.init(name: name, values: values, nulls: nulls)
    }
}

/// The null bitmap of a wire column: bit `i` set means row `i` is null, LSB-first within each
/// byte (row 0 is mask 0x01 of byte 0); empty when no row is null.
enum NullBitmap {
    /// The number of bytes a bitmap for `rows` rows has.
    static func byteCount(rows: Int) -> Int { (rows + 7) / 8 }

    /// The bitmap for `Column.nulls` (empty in, empty out).
    static func encode(_ nulls: [Bool]) -> [UInt8] {
        guard !nulls.isEmpty else { return [] }
        var bytes = [UInt8](repeating: 0, count: byteCount(rows: nulls.count))
        for (row, isNull) in nulls.enumerated() where isNull {
            bytes[row >> 3] |= 1 << UInt8(row & 7)
        }
        return bytes
    }

    /// `Column.nulls` for a bitmap of a column of `rows` rows.
    ///
    /// - Throws: `FrameDecodingError` when the bitmap has the wrong length or marks rows past the
    ///   last one.
    static func decode(_ bytes: [UInt8], rows: Int, column: String) throws(FrameDecodingError) -> [Bool] {
        guard !bytes.isEmpty else { return [] }
        let expected = byteCount(rows: rows)
        guard bytes.count == expected else {
            throw .nullBitmapLength(column: column, rows: rows, expected: expected, actual: bytes.count)
        }
        let usedBits = rows & 7
        if usedBits != 0, bytes[expected - 1] >> UInt8(usedBits) != 0 {
            throw .nullBitmapPadding(column: column, rows: rows)
        }
        var nulls = [Bool](repeating: false, count: rows)
        for row in 0..<rows where bytes[row >> 3] & (1 << UInt8(row & 7)) != 0 {
            nulls[row] = true
        }
        return nulls
    }
}

/// A wire frame that is not well formed, found while converting it to a `Frame`.
///
/// Its `description` says what is wrong and where (column name and position), in words meant for
/// the author of the peer that sent it. A server answers it with `Error{code: BAD_REQUEST}`.
public struct FrameDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Reason: Sendable, Equatable {
        case rowsWithoutColumns(rowCount: UInt64)
        case missingType(column: String, index: Int)
        case unknownType(column: String, index: Int, rawValue: Int)
        case valueCount(column: String, type: ColumnType, expected: UInt64, actual: Int)
        case foreignValues(column: String, type: ColumnType, field: String)
        case nullBitmapLength(column: String, rows: Int, expected: Int, actual: Int)
        case nullBitmapPadding(column: String, rows: Int)
        case duplicateColumn(String)
        case rejected(FrameError)
    }

    let reason: Reason

    private init(_ reason: Reason) { self.reason = reason }

    /// The name of the column at fault; nil when the problem is the frame as a whole.
    public var column: String? {
        switch reason {
        case .rowsWithoutColumns, .rejected: nil
        case .missingType(let column, _), .unknownType(let column, _, _), .valueCount(let column, _, _, _),
             .foreignValues(let column, _, _), .nullBitmapLength(let column, _, _, _),
             .nullBitmapPadding(let column, _), .duplicateColumn(let column):
            column
        }
    }

    public var description: String {
        switch reason {
        case .rowsWithoutColumns(let rowCount):
            "invalid frame: row_count is \(rowCount) but there are no columns (a frame without columns has 0 rows)"
        case .missingType(let column, let index):
            "invalid frame: column '\(column)' (#\(index)) has no type (COLUMN_TYPE_UNSPECIFIED)"
        case .unknownType(let column, let index, let rawValue):
            "invalid frame: column '\(column)' (#\(index)) has unknown type \(rawValue); this peer knows int64, double, string, bytes, bool"
        case .valueCount(let column, let type, let expected, let actual):
            "invalid frame: \(type) column '\(column)' has \(actual) values where the frame has \(expected) rows (one value per row, nulls included)"
        case .foreignValues(let column, let type, let field):
            "invalid frame: \(type) column '\(column)' also sets \(field); only the value array of the column's type may be set"
        case .nullBitmapLength(let column, let rows, let expected, let actual):
            "invalid frame: column '\(column)' has a \(actual)-byte null bitmap; \(rows) rows need \(expected) bytes (or none when no row is null)"
        case .nullBitmapPadding(let column, let rows):
            "invalid frame: column '\(column)' has null bits set past its last row (\(rows) rows); unused bits must be 0"
        case .duplicateColumn(let name):
            "invalid frame: two columns are named '\(name)'"
        case .rejected(let error):
            "invalid frame: \(error)"
        }
    }

    static func rowsWithoutColumns(rowCount: UInt64) -> Self { Self(.rowsWithoutColumns(rowCount: rowCount)) }
    static func missingType(column: String, index: Int) -> Self { Self(.missingType(column: column, index: index)) }
    static func unknownType(column: String, index: Int, rawValue: Int) -> Self {
        Self(.unknownType(column: column, index: index, rawValue: rawValue))
    }
    static func valueCount(column: String, type: ColumnType, expected: UInt64, actual: Int) -> Self {
        Self(.valueCount(column: column, type: type, expected: expected, actual: actual))
    }
    static func foreignValues(column: String, type: ColumnType, field: String) -> Self {
        Self(.foreignValues(column: column, type: type, field: field))
    }
    static func nullBitmapLength(column: String, rows: Int, expected: Int, actual: Int) -> Self {
        Self(.nullBitmapLength(column: column, rows: rows, expected: expected, actual: actual))
    }
    static func nullBitmapPadding(column: String, rows: Int) -> Self { Self(.nullBitmapPadding(column: column, rows: rows)) }
    static func duplicateColumn(_ name: String) -> Self { Self(.duplicateColumn(name)) }
    static func rejected(_ error: FrameError) -> Self { Self(.rejected(error)) }
}
