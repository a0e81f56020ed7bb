import EscrowCore
import NIOCore
import SwiftProtobuf
import Testing

@testable import EscrowWire

/// Inputs found by fuzzing the frame and envelope decoders (docs/RELIABILITY.md). Each is also in
/// the seed corpus (Fuzz/Corpus/fuzz-frame/regression-*).
@Suite("FrameWire and EnvelopeDecoder: inputs found by fuzzing")
struct WireFuzzRegressionTests {
    /// fuzz-frame's finding: a `Frame` holding one unknown fixed64 field whose tag is padded to 6
    /// bytes. SwiftProtobuf (and protoc) refuse a tag over 5 bytes; FrameWire read it as an empty
    /// frame, so the envelope decoder's fast path accepted what the protocol calls invalid.
    static let paddedTagFrame: [UInt8] = [0xA1, 0xCF, 0xE1, 0x80, 0x80, 0x00, 0xDB, 0xF5, 0xFB, 0x85, 0x8E, 0x9D, 0x10, 0x03]

    @Test("a frame with a 6-byte tag is declined by FrameWire, as SwiftProtobuf refuses it")
    func paddedTagFrameDeclined() {
        #expect(throws: (any Error).self) { try Escrow_V1_Frame(serializedBytes: Self.paddedTagFrame) }
        #expect(throws: WireFormatError.self) {
            try Self.paddedTagFrame.withUnsafeBytes { try FrameWire.read($0, range: 0..<$0.count) }
        }
    }

    @Test("an envelope carrying that frame is refused as invalid protobuf, not read as an empty frame")
    func paddedTagEnvelopeRefused() {
        // Envelope{compute_response (5): ComputeResponse{output (1): the frame}}.
        let frame = Self.paddedTagFrame
        let body: [UInt8] = [0x2A, UInt8(frame.count + 2), 0x0A, UInt8(frame.count)] + frame
        #expect(throws: RPCError.self) { try EnvelopeDecoder.read(ByteBuffer(bytes: body)) }
    }

    @Test("tags padded up to 5 bytes are still read, as SwiftProtobuf reads them", arguments: [
        [0x10, 0x00],
        [0x90, 0x00, 0x00],
        [0x90, 0x80, 0x80, 0x80, 0x00, 0x00],
    ] as [[UInt8]])
    func paddedTagsUpToFiveBytes(_ bytes: [UInt8]) throws {
        // row_count (field 2) = 0, its tag written in 1, 2 and 5 bytes.
        let reference = try Frame(try Escrow_V1_Frame(serializedBytes: bytes))
        let read = try bytes.withUnsafeBytes { try FrameWire.read($0, range: 0..<$0.count) }
        #expect(try read.get() == reference)
        #expect(reference == .empty)
    }
}
