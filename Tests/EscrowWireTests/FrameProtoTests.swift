import EscrowCore
import Foundation
import SwiftProtobuf
import Testing

@testable import EscrowWire

/// A named frame for the round-trip table.
struct FrameCase: Sendable, CustomTestStringConvertible {
    let name: String
    let frame: @Sendable () throws -> Frame
    var testDescription: String { name }
}

/// A named malformed wire frame and the error it must produce.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let proto: Escrow_V1_Frame
    let expected: FrameDecodingError
    var testDescription: String { name }
}

private func column(_ name: String, _ values: ColumnValues, nulls: [Bool] = []) -> Column {
    Column(name: name, values: values, nulls: nulls)
}

private func nullsAt(_ rows: Set<Int>, count: Int) -> [Bool] {
    (0..<count).map { rows.contains($0) }
}

/// A wire column with the given values; `build` sets the value arrays.
private func wireColumn(
    _ name: String, _ type: Escrow_V1_ColumnType, bitmap: [UInt8] = [],
    _ build: (inout Escrow_V1_Column) -> Void = { _ in }
) -> Escrow_V1_Column {
    var column = Escrow_V1_Column()
    column.name = name
    column.type = type
    column.nullBitmap = Data(bitmap)
    build(&column)
    return column
}

private func wireFrame(rows: UInt64, _ columns: Escrow_V1_Column...) -> Escrow_V1_Frame {
    var frame = Escrow_V1_Frame()
    frame.rowCount = rows
    frame.columns = columns
    return frame
}

/// 1000 images of 16 KB, every one different.
private func largeBytesFrame() throws -> Frame {
    let images = (0..<1000).map { index in
        [UInt8](unsafeUninitializedCapacity: 16 * 1024) { buffer, count in
            for offset in 0..<buffer.count { buffer[offset] = UInt8(truncatingIfNeeded: offset &* 31 &+ index) }
            count = buffer.count
        }
    }
    return try Frame(columns: [
        column("id", .int64((0..<1000).map(Int64.init))),
        column("image", .bytes(images), nulls: nullsAt([7, 999], count: 1000)),
    ])
}

let roundTripCases: [FrameCase] = [
    FrameCase(name: "no columns") { .empty },
    FrameCase(name: "columns without rows") {
        try Frame(columns: [
            column("i", .int64([])), column("d", .double([])), column("s", .string([])),
            column("b", .bytes([])), column("f", .bool([])),
        ])
    },
    FrameCase(name: "one row of each type") {
        try Frame(columns: [
            column("i", .int64([42])), column("d", .double([2.5])), column("s", .string(["x"])),
            column("b", .bytes([[1, 2, 3]])), column("f", .bool([true])),
        ])
    },
    FrameCase(name: "integer extremes") {
        try Frame(columns: [column("i", .int64([.min, -1, 0, 1, .max]))])
    },
    FrameCase(name: "special doubles") {
        try Frame(columns: [column("d", .double([.infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e-300]))])
    },
    FrameCase(name: "unicode and empty strings") {
        try Frame(columns: [column("s", .string(["", "Zürich", "東京", "🧭👩🏽‍💻", "a\u{0}b", "\n\t\"", ""]))])
    },
    FrameCase(name: "empty and binary bytes") {
        try Frame(columns: [column("b", .bytes([[], [0], [0xFF, 0x00, 0x80], Array(0...255)]))])
    },
    FrameCase(name: "null in first row") {
        try Frame(columns: [column("i", .int64([0, 5, 6]), nulls: [true, false, false])])
    },
    FrameCase(name: "null in last row of a full byte") {
        try Frame(columns: [column("d", .double((0..<8).map(Double.init)), nulls: nullsAt([7], count: 8))])
    },
    FrameCase(name: "null in the ninth row") {
        try Frame(columns: [column("s", .string((0..<9).map { "r\($0)" }), nulls: nullsAt([8], count: 9))])
    },
    FrameCase(name: "all rows null") {
        try Frame(columns: [column("f", .bool([false, false, false]), nulls: [true, true, true])])
    },
    FrameCase(name: "nulls scattered over 1000 rows in every type") {
        let nulls = nullsAt([0, 1, 63, 64, 500, 998, 999], count: 1000)
        return try Frame(columns: [
            column("i", .int64((0..<1000).map { $0 % 3 == 0 ? 0 : Int64($0) }), nulls: nulls),
            column("d", .double((0..<1000).map { Double($0) / 7 }), nulls: nulls),
            column("s", .string((0..<1000).map { "row \($0)" }), nulls: nulls),
            column("b", .bytes((0..<1000).map { [UInt8(truncatingIfNeeded: $0)] }), nulls: nulls),
            column("f", .bool((0..<1000).map { $0 % 2 == 0 }), nulls: nulls),
        ])
    },
    FrameCase(name: "1000 × 16 KB bytes", frame: largeBytesFrame),
]

@Suite("Frame ⇄ Escrow_V1_Frame")
struct FrameProtoTests {
    @Test("round trip through the wire form and serialized bytes", arguments: roundTripCases)
    func roundTrip(_ testCase: FrameCase) throws {
        let frame = try testCase.frame()
        let proto = Escrow_V1_Frame(frame)
        #expect(try Frame(proto) == frame)

        let bytes: [UInt8] = try proto.serializedBytes()
        let decoded = try Escrow_V1_Frame(serializedBytes: bytes)
        #expect(try Frame(decoded) == frame)
    }

    @Test("NaN survives bit for bit")
    func nan() throws {
        let payload = Double(nan: 0x1234, signaling: false)
        let frame = try Frame(columns: [column("d", .double([.nan, -.nan, payload]))])
        let wire = try Escrow_V1_Frame(serializedBytes: try Escrow_V1_Frame(frame).serializedBytes() as [UInt8])
        let decoded = try Frame(wire)
        guard case .double(let values) = decoded.columns[0].values else {
            Issue.record("expected a double column, got \(decoded.columns[0].type)")
            return
        }
        #expect(values.map(\.bitPattern) == [Double.nan, -Double.nan, payload].map(\.bitPattern))
    }

    @Test("the wire form follows the documented layout")
    func wireLayout() throws {
        let frame = try Frame(columns: [
            column("i", .int64(Array(0..<10)), nulls: nullsAt([0, 9], count: 10)),
            column("s", .string(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"])),
        ])
        let proto = Escrow_V1_Frame(frame)
        #expect(proto.rowCount == 10)
        #expect(proto.columns.map(\.name) == ["i", "s"])
        #expect(proto.columns[0].type == .int64)
        #expect(proto.columns[0].nullBitmap == Data([0x01, 0x02]))
        #expect(proto.columns[0].int64Values == Array(0..<10))
        #expect(proto.columns[0].stringValues.isEmpty)
        #expect(proto.columns[1].type == .string)
        #expect(proto.columns[1].nullBitmap.isEmpty)
        #expect(proto.columns[1].int64Values.isEmpty)
    }

    @Test("an all-zero bitmap of the right length reads as no nulls")
    func zeroBitmap() throws {
        let proto = wireFrame(rows: 3, wireColumn("i", .int64, bitmap: [0]) { $0.int64Values = [1, 2, 3] })
        #expect(try Frame(proto) == Frame(columns: [column("i", .int64([1, 2, 3]))]))
    }

    @Test("a malformed wire frame is refused with a specific error", arguments: malformedCases)
    func malformed(_ testCase: MalformedCase) {
        #expect(throws: testCase.expected) { try Frame(testCase.proto) }
        #expect(!testCase.expected.description.isEmpty)
    }

    @Test("errors say what is wrong and where")
    func messages() {
        let error = FrameDecodingError.valueCount(column: "lat", type: .double, expected: 3, actual: 2)
        #expect(error.description == "invalid frame: double column 'lat' has 2 values where the frame has 3 rows (one value per row, nulls included)")
        #expect(error.column == "lat")
        #expect(FrameDecodingError.rowsWithoutColumns(rowCount: 1).column == nil)
    }

    @Test("an envelope carrying a frame round-trips through serializedData()")
    func envelope() throws {
        let frame = try largeBytesFrame()
        var request = Escrow_V1_ComputeRequest()
        request.functionID = "photos.summary"
        request.functionVersion = 3
        request.codeDigest = String(repeating: "ab", count: 32)
        request.input = Escrow_V1_Frame(frame)
        request.parameters = ["radius": "500", "term": "café"]
        request.deadlineMs = 30_000
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = 7
        envelope.body = .computeRequest(request)

        let data = try envelope.serializedData()
        #expect(data.count > 1000 * 16 * 1024)
        let decoded = try Escrow_V1_Envelope(serializedBytes: data)
        #expect(decoded == envelope)
        #expect(decoded.requestID == 7)
        guard case .computeRequest(let received) = decoded.body else {
            Issue.record("expected a compute request, got \(String(describing: decoded.body))")
            return
        }
        #expect(received.parameters == ["radius": "500", "term": "café"])
        #expect(try Frame(received.input) == frame)
    }

    @Test("every envelope body round-trips", arguments: envelopeBodies)
    func everyBody(_ body: Escrow_V1_Envelope.OneOf_Body) throws {
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = .max
        envelope.body = body
        let decoded = try Escrow_V1_Envelope(serializedBytes: try envelope.serializedData())
        #expect(decoded == envelope)
    }

    @Test("invalid protobuf bytes throw instead of trapping")
    func garbage() {
        #expect(throws: (any Error).self) {
            try Escrow_V1_Envelope(serializedBytes: [0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        }
    }
}

@Suite("FunctionDescriptor ⇄ Escrow_V1_FunctionInfo")
struct FunctionInfoProtoTests {
    @Test("round trip")
    func roundTrip() throws {
        let descriptor = FunctionDescriptor(id: "location.region", version: 2, codeDigest: String(repeating: "0f", count: 32), summary: "Where, roughly.")
        let info = Escrow_V1_FunctionInfo(descriptor)
        #expect(info.id == "location.region")
        #expect(info.version == 2)
        let decoded = try FunctionDescriptor(Escrow_V1_FunctionInfo(serializedBytes: try info.serializedData()))
        #expect(decoded == descriptor)
    }

    @Test("unusable catalog entries are refused")
    func invalid() {
        var info = Escrow_V1_FunctionInfo(FunctionDescriptor(id: "f", version: 1, codeDigest: "ab", summary: ""))
        info.id = ""
        #expect(throws: FunctionInfoDecodingError(reason: .missingID)) { try FunctionDescriptor(info) }
        info.id = "f"
        info.version = 0
        #expect(throws: FunctionInfoDecodingError(reason: .badVersion(id: "f", version: 0))) { try FunctionDescriptor(info) }
        info.version = 1
        info.codeDigest = ""
        #expect(throws: FunctionInfoDecodingError(reason: .missingDigest(id: "f"))) { try FunctionDescriptor(info) }
    }
}

let envelopeBodies: [Escrow_V1_Envelope.OneOf_Body] = {
    var hello = Escrow_V1_Hello()
    hello.clientName = "escrow-host/test"
    hello.protocolVersion = 1
    var catalog = Escrow_V1_Catalog()
    catalog.serverID = "eu-1"
    catalog.functions = [Escrow_V1_FunctionInfo(FunctionDescriptor(id: "identity", version: 1, codeDigest: "ab12", summary: "Returns its input."))]
    var response = Escrow_V1_ComputeResponse()
    response.output = Escrow_V1_Frame(Frame.empty)
    response.computeMicros = 1234
    var error = Escrow_V1_Error()
    error.code = .digestMismatch
    error.message = "digest differs"
    error.functionID = "identity"
    var ping = Escrow_V1_Ping()
    ping.nonce = 99
    var pong = Escrow_V1_Pong()
    pong.nonce = 99
    return [.hello(hello), .catalog(catalog), .computeRequest(Escrow_V1_ComputeRequest()), .computeResponse(response),
            .error(error), .cancel(Escrow_V1_Cancel()), .ping(ping), .pong(pong)]
}()

let malformedCases: [MalformedCase] = [
    MalformedCase(
        name: "rows without columns",
        proto: wireFrame(rows: 3),
        expected: .rowsWithoutColumns(rowCount: 3)),
    MalformedCase(
        name: "unspecified type",
        proto: wireFrame(rows: 1, wireColumn("a", .unspecified) { $0.int64Values = [1] }),
        expected: .missingType(column: "a", index: 0)),
    MalformedCase(
        name: "unknown type",
        proto: wireFrame(rows: 1, wireColumn("ok", .bool) { $0.boolValues = [true] }, wireColumn("b", .UNRECOGNIZED(42))),
        expected: .unknownType(column: "b", index: 1, rawValue: 42)),
    MalformedCase(
        name: "too few values",
        proto: wireFrame(rows: 3, wireColumn("lat", .double) { $0.doubleValues = [1, 2] }),
        expected: .valueCount(column: "lat", type: .double, expected: 3, actual: 2)),
    MalformedCase(
        name: "too many values",
        proto: wireFrame(rows: 1, wireColumn("s", .string) { $0.stringValues = ["a", "b"] }),
        expected: .valueCount(column: "s", type: .string, expected: 1, actual: 2)),
    MalformedCase(
        name: "huge row count",
        proto: wireFrame(rows: .max, wireColumn("b", .bytes) { $0.bytesValues = [Data([1])] }),
        expected: .valueCount(column: "b", type: .bytes, expected: .max, actual: 1)),
    MalformedCase(
        name: "second column shorter",
        proto: wireFrame(rows: 2, wireColumn("i", .int64) { $0.int64Values = [1, 2] }, wireColumn("f", .bool) { $0.boolValues = [true] }),
        expected: .valueCount(column: "f", type: .bool, expected: 2, actual: 1)),
    MalformedCase(
        name: "values in another type's array",
        proto: wireFrame(rows: 1, wireColumn("i", .int64) { $0.int64Values = [1]; $0.stringValues = ["1"] }),
        expected: .foreignValues(column: "i", type: .int64, field: "string_values")),
    MalformedCase(
        name: "values only in another type's array",
        proto: wireFrame(rows: 1, wireColumn("b", .bytes) { $0.boolValues = [true] }),
        expected: .foreignValues(column: "b", type: .bytes, field: "bool_values")),
    MalformedCase(
        name: "values in a zero-row column's other array",
        proto: wireFrame(rows: 0, wireColumn("d", .double) { $0.int64Values = [1] }),
        expected: .foreignValues(column: "d", type: .double, field: "int64_values")),
    MalformedCase(
        name: "bitmap too short",
        proto: wireFrame(rows: 9, wireColumn("i", .int64, bitmap: [0x01]) { $0.int64Values = Array(repeating: 0, count: 9) }),
        expected: .nullBitmapLength(column: "i", rows: 9, expected: 2, actual: 1)),
    MalformedCase(
        name: "bitmap too long",
        proto: wireFrame(rows: 8, wireColumn("i", .int64, bitmap: [0x01, 0x00]) { $0.int64Values = Array(repeating: 0, count: 8) }),
        expected: .nullBitmapLength(column: "i", rows: 8, expected: 1, actual: 2)),
    MalformedCase(
        name: "bitmap on a zero-row column",
        proto: wireFrame(rows: 0, wireColumn("s", .string, bitmap: [0x00])),
        expected: .nullBitmapLength(column: "s", rows: 0, expected: 0, actual: 1)),
    MalformedCase(
        name: "null bit past the last row",
        proto: wireFrame(rows: 3, wireColumn("f", .bool, bitmap: [0x08]) { $0.boolValues = [true, false, true] }),
        expected: .nullBitmapPadding(column: "f", rows: 3)),
    MalformedCase(
        name: "duplicate column names",
        proto: wireFrame(rows: 1, wireColumn("x", .int64) { $0.int64Values = [1] }, wireColumn("x", .string) { $0.stringValues = ["1"] }),
        expected: .duplicateColumn("x")),
]
