import EscrowCore
import Foundation
import NIOCore
import SwiftProtobuf
import Testing

@testable import EscrowWire

/// The hand-written frame codec against SwiftProtobuf, the reference: same bytes out, same
/// meaning in, every odd form handed back to SwiftProtobuf.
@Suite("FrameWire and frame-carrying envelopes")
struct FrameWireTests {
    @Test("writes exactly the bytes SwiftProtobuf writes, and reads them back", arguments: roundTripCases)
    func sameBytesAsSwiftProtobuf(_ testCase: FrameCase) throws {
        let frame = try testCase.frame()
        let reference: [UInt8] = try Escrow_V1_Frame(frame).serializedBytes()
        let ours = FrameWire.bytes(frame)
        #expect(ours == reference)
        let read = try ours.withUnsafeBytes { try FrameWire.read($0, range: 0..<$0.count) }
        #expect(try read.get() == frame)
    }

    @Test("large binary columns, copied by several threads, keep every cell in place", arguments: [
        [2_500_000],
        [700_000, 0, 700_000, 1, 700_000],
        Array(repeating: 300, count: 5000),
        (0..<400).map { $0 % 7 == 0 ? 0 : 4096 + $0 },
    ])
    func parallelCells(sizes: [Int]) throws {
        let cells = sizes.enumerated().map { index, size in
            [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                for offset in 0..<size { buffer[offset] = UInt8(truncatingIfNeeded: offset &* 7 &+ index &* 13) }
                count = size
            }
        }
        let frame = try Frame(columns: [Column(name: "blob", values: .bytes(cells))])
        #expect(sizes.reduce(0, +) >= FrameWire.parallelCellBytes)
        let ours = FrameWire.bytes(frame)
        #expect(ours == (try Escrow_V1_Frame(frame).serializedBytes() as [UInt8]))
        let read = try ours.withUnsafeBytes { try FrameWire.read($0, range: 0..<$0.count) }
        #expect(try read.get() == frame)
    }

    @Test("an envelope carrying a frame is plain protobuf to SwiftProtobuf", arguments: roundTripCases)
    func envelopeReadBySwiftProtobuf(_ testCase: FrameCase) throws {
        let frame = try testCase.frame()
        let envelope = computeRequest(id: 300)
        let parsed = try Escrow_V1_Envelope(serializedBytes: Array(try body(of: try envelope.message(carrying: frame)).readableBytesView))
        var expected = envelope
        expected.computeRequest.input = Escrow_V1_Frame(frame)
        #expect(parsed == expected)
    }

    @Test("the decoder splits a SwiftProtobuf envelope into the message and the frame", arguments: roundTripCases)
    func decoderReadsSwiftProtobufEnvelopes(_ testCase: FrameCase) throws {
        let frame = try testCase.frame()
        // SwiftProtobuf writes the input (field 4) between fields 3 and 5: the frame in the middle.
        var envelope = computeRequest(id: 1 << 40)
        envelope.computeRequest.input = Escrow_V1_Frame(frame)
        let (message, carried) = try EnvelopeDecoder.read(ByteBuffer(bytes: try envelope.serializedBytes() as [UInt8]))
        #expect(try carried.get() == frame)
        #expect(message == computeRequest(id: 1 << 40))
    }

    @Test("each body carrying a frame round-trips through message(carrying:) and the decoder")
    func everyCarrier() throws {
        let frame = try Frame(columns: [Column(name: "label", values: .string(["sunset", "cat"]))])
        var response = Escrow_V1_Envelope()
        response.requestID = 9
        response.computeResponse = .with { $0.computeMicros = 1234 }
        var run = Escrow_V1_Envelope()
        run.requestID = 0
        run.runResponse = .with {
            $0.flowID = "f-1"
            $0.auditSeq = 77
        }
        for envelope in [computeRequest(id: 5), response, run] {
            let (message, carried) = try EnvelopeDecoder.read(body(of: try envelope.message(carrying: frame)))
            #expect(message == envelope)
            #expect(try carried.get() == frame)
        }
        // An envelope whose body carries no frame cannot carry one.
        var ping = Escrow_V1_Envelope()
        ping.ping = .with { $0.nonce = 1 }
        #expect(throws: RPCError.self) { try ping.message(carrying: frame) }
    }

    @Test("an invalid frame is returned as the peer's error, the message still read", arguments: malformedCases)
    func invalidFrames(_ testCase: MalformedCase) throws {
        var envelope = computeRequest(id: 3)
        envelope.computeRequest.input = testCase.proto
        let (message, carried) = try EnvelopeDecoder.read(ByteBuffer(bytes: try envelope.serializedBytes() as [UInt8]))
        #expect(message == computeRequest(id: 3))
        #expect(throws: testCase.expected) { try carried.get() }
    }

    @Test("legal but unusual forms mean what SwiftProtobuf says they mean", arguments: unusualForms)
    func unusualForm(_ form: UnusualForm) throws {
        let bytes = form.bytes()
        let reference = try Escrow_V1_Envelope(serializedBytes: bytes)
        let (message, carried) = try EnvelopeDecoder.read(ByteBuffer(bytes: bytes))
        var expected = reference
        expected.computeRequest.clearInput()
        #expect(message == expected)
        #expect(try carried.get() == Frame(reference.computeRequest.input))
    }

    @Test("bytes that are not protobuf are refused, whatever their length")
    func malformedBytes() throws {
        var envelope = computeRequest(id: 11)
        envelope.computeRequest.input = Escrow_V1_Frame(try Frame(columns: [
            Column(name: "image", values: .bytes([[1, 2, 3], Array(repeating: 9, count: 300)])),
            Column(name: "n", values: .int64([1, -1])),
        ]))
        let valid: [UInt8] = try envelope.serializedBytes()
        // Every truncation either reads (a prefix can be a valid message) or is refused; none traps,
        // and the decoder agrees with SwiftProtobuf on which.
        for length in 0..<valid.count {
            let prefix = Array(valid[..<length])
            let reference = Result { try Escrow_V1_Envelope(serializedBytes: prefix) }
            let ours = Result { try EnvelopeDecoder.read(ByteBuffer(bytes: prefix)) }
            switch (reference, ours) {
            case (.success, .success), (.failure, .failure(RPCError.invalidMessage)): break
            default: Issue.record("length \(length): SwiftProtobuf \(reference), decoder \(ours)")
            }
        }
        // Invalid UTF-8 in a column name.
        var bad = envelope
        bad.computeRequest.input.columns[0].name = "zz"
        var bytes: [UInt8] = try bad.serializedBytes()
        let at = try #require(bytes.firstIndex(of: UInt8(ascii: "z")))
        bytes[at] = 0xFF
        #expect(throws: RPCError.self) { try EnvelopeDecoder.read(ByteBuffer(bytes: bytes)) }
    }

    /// Text cells are read only when they are valid UTF-8, exactly when SwiftProtobuf reads them:
    /// six bytes put in place of a cell's text, valid or not (including a truncated sequence the
    /// decoder would repair into a replacement character of the same length).
    @Test("text cells: valid UTF-8 is read as is, anything else refused, as SwiftProtobuf does", arguments: [
        [0x61, 0x62, 0x63, 0x64, 0x65, 0x66],   // ASCII
        [0x63, 0x61, 0x66, 0xC3, 0xA9, 0x21],   // "café!"
        [0xF0, 0x9F, 0x98, 0x80, 0x61, 0x62],   // an emoji, then ASCII
        [0xF0, 0x9F, 0x98, 0x61, 0x62, 0x63],   // a 4-byte sequence cut after 3 bytes, then ASCII
        [0x61, 0x80, 0x62, 0x63, 0x64, 0x65],   // a lone continuation byte
        [0xC0, 0xAF, 0x61, 0x62, 0x63, 0x64],   // an overlong "/"
        [0xED, 0xA0, 0x80, 0x61, 0x62, 0x63],   // a UTF-16 surrogate
        [0x61, 0x62, 0x63, 0x64, 0x65, 0xFF],   // 0xFF
    ] as [[UInt8]])
    func textCellsAreValidatedLikeSwiftProtobuf(text: [UInt8]) throws {
        var envelope = computeRequest(id: 9)
        envelope.computeRequest.input = try Escrow_V1_Frame(Frame(columns: [
            Column(name: "given", values: .string(["Ada", "MARKER", "Grace"])),
        ]))
        var bytes: [UInt8] = try envelope.serializedBytes()
        let marker = Array("MARKER".utf8)
        let at = try #require((0...(bytes.count - marker.count)).first { Array(bytes[$0..<$0 + marker.count]) == marker })
        bytes.replaceSubrange(at..<at + marker.count, with: text)

        let valid = String(validating: text, as: UTF8.self) != nil
        #expect(((try? Escrow_V1_Envelope(serializedBytes: bytes)) != nil) == valid, "SwiftProtobuf agrees")
        if valid {
            let (_, frame) = try EnvelopeDecoder.read(ByteBuffer(bytes: bytes))
            #expect(try frame.get().column("given").string(at: 1).map { Array($0.utf8) } == text)
        } else {
            #expect(throws: RPCError.self) { try EnvelopeDecoder.read(ByteBuffer(bytes: bytes)) }
        }
    }

    // MARK: - Helpers

    private func computeRequest(id: UInt64) -> Escrow_V1_Envelope {
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = id
        envelope.computeRequest = .with {
            $0.functionID = "photos.labels"
            $0.functionVersion = 2
            $0.codeDigest = String(repeating: "cd", count: 32)
            $0.parameters = ["radius": "500", "term": "café"]
            $0.deadlineMs = 30_000
        }
        return envelope
    }

    /// A length-prefixed message's body, checking the prefix on the way.
    private func body(of frame: ByteBuffer) throws -> ByteBuffer {
        var frame = frame
        let length = frame.readInteger(as: UInt32.self)
        #expect(length.map(Int.init) == frame.readableBytes)
        return frame
    }
}

/// An envelope in a legal form the decoder's fast path does not take, built byte by byte.
struct UnusualForm: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: @Sendable () -> [UInt8]
    var testDescription: String { name }
}

private func varint(_ value: UInt64) -> [UInt8] {
    var value = value
    var bytes: [UInt8] = []
    while value >= 0x80 {
        bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
        value >>= 7
    }
    return bytes + [UInt8(value)]
}

private func field(_ number: UInt64, _ payload: [UInt8]) -> [UInt8] {
    varint(number << 3 | 2) + varint(UInt64(payload.count)) + payload
}

private func column(_ name: String, int64s: [Int64]) -> [UInt8] {
    field(1, Array(name.utf8)) + varint(2 << 3) + varint(1) + field(4, int64s.flatMap { varint(ZigZag.encode($0)) })
}

/// Envelope{request_id: 8, compute_request: body}.
private func envelope(_ body: [UInt8]) -> [UInt8] {
    varint(1 << 3) + varint(8) + field(4, body)
}

let unusualForms: [UnusualForm] = [
    UnusualForm(name: "the frame field twice (its columns merge)") {
        let first = field(4, field(1, column("a", int64s: [1, 2])) + varint(2 << 3) + varint(2))
        let second = field(4, field(1, column("b", int64s: [3, 4])))
        return envelope(field(1, Array("identity".utf8)) + first + second)
    },
    UnusualForm(name: "int64 values not packed") {
        let column = field(1, Array("n".utf8)) + varint(2 << 3) + varint(1)
            + varint(4 << 3) + varint(ZigZag.encode(-5)) + varint(4 << 3) + varint(ZigZag.encode(7))
        return envelope(field(4, field(1, column) + varint(2 << 3) + varint(2)))
    },
    UnusualForm(name: "an unknown field in the envelope") {
        envelope(field(4, field(1, column("a", int64s: [1])) + varint(2 << 3) + varint(1))) + field(99, [1, 2, 3])
    },
    UnusualForm(name: "a known field under another wire type") {
        // row_count (field 2) as a length-delimited field: SwiftProtobuf keeps it as unknown.
        envelope(field(4, field(1, column("a", int64s: [1])) + varint(2 << 3) + varint(1) + field(2, [5])))
    },
    UnusualForm(name: "the body twice (the messages merge)") {
        envelope(field(1, Array("identity".utf8))) + field(4, field(4, field(1, column("a", int64s: [])) ))
    },
]
