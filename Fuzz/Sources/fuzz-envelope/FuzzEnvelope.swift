import EscrowCore
@_spi(Fuzzing) import EscrowWire
import FuzzSupport
import NIOCore
import NIOEmbedded
import SwiftProtobuf

/// The largest message this harness's decoder accepts: small, so that announcing a larger one (the
/// `messageTooLarge` path) is within the fuzzer's reach.
let maximumMessageLength = 4096

/// A received byte stream, through `EnvelopeDecoder` in a real (embedded) channel pipeline.
///
/// The first input byte sets how many bytes arrive per read (1 to 256), the rest is the stream:
/// 4-byte big-endian lengths, each followed by one serialized `Envelope`.
///
/// Invariants: nothing traps; the decoder passes on exactly the messages a plain reading of the
/// length prefixes finds, however the bytes are split, and stops at the first one over the maximum
/// or not protobuf; each envelope (and the frame its body carries) equals what SwiftProtobuf alone
/// reads from that message's bytes (the decoder's fast path changes nothing); an envelope whose
/// frame is valid encodes again (`message(carrying:)`) to bytes that decode to the same envelope.
@main
enum FuzzEnvelope {
    static func main() {
        runFuzzer { data, size in
            check(fuzzInput(data, size))
            return 0
        }
    }
}

/// Runs one input.
func check(_ input: [UInt8]) {
    guard let first = input.first else { return }
    let stream = input.dropFirst()
    let chunk = Int(first) + 1

    let channel = EmbeddedChannel(handler: ByteToMessageHandler(EnvelopeDecoder(maximumMessageLength: maximumMessageLength)))
    var received: [ReceivedEnvelope] = []
    var failure: (any Error)?
    var offset = stream.startIndex
    while offset < stream.endIndex, failure == nil {
        let end = min(offset + chunk, stream.endIndex)
        do {
            try channel.writeInbound(ByteBuffer(bytes: stream[offset..<end]))
        } catch {
            failure = error
        }
        offset = end
        while let envelope = try? channel.readInbound(as: ReceivedEnvelope.self) { received.append(envelope) }
    }
    _ = try? channel.finish()

    // The plain reading: length, body, until a length is too large, a body is not an envelope or
    // the bytes run out.
    var expected: [[UInt8]] = []
    var expectsFailure = false
    var position = stream.startIndex
    while stream.endIndex - position >= 4 {
        let length = stream[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
        if length > maximumMessageLength {
            expectsFailure = true
            break
        }
        guard stream.endIndex - position - 4 >= length else { break }
        let body = Array(stream[position + 4..<position + 4 + length])
        position += 4 + length
        guard (try? Escrow_V1_Envelope(serializedBytes: body)) != nil else {
            expectsFailure = true
            break
        }
        expected.append(body)
    }
    require(received.count == expected.count, "the decoder passed on \(received.count) envelopes where the stream holds \(expected.count)")
    require((failure != nil) == expectsFailure, "the decoder \(failure.map { "failed (\($0))" } ?? "did not fail") where a plain reading \(expectsFailure ? "fails" : "does not")")

    for (envelope, body) in zip(received, expected) {
        require(envelope.byteCount == 4 + body.count, "byteCount \(envelope.byteCount) for a message of \(4 + body.count) bytes")
        let plain = plainRead(body)
        require(deterministic(envelope.envelope) == deterministic(plain.envelope),
                "the decoder's envelope differs from SwiftProtobuf's:\n  \(envelope.envelope.textFormatString())\n  \(plain.envelope.textFormatString())")
        require(same(envelope.frame, plain.frame), "the decoder's frame differs from SwiftProtobuf's:\n  \(envelope.frame)\n  \(plain.frame)")
        checkRoundTrip(envelope)
    }
}

/// What SwiftProtobuf alone reads from a message's body: the envelope without the frame its body
/// carries, and that frame checked by `Frame(_: Escrow_V1_Frame)` (`.empty` for other bodies).
func plainRead(_ body: [UInt8]) -> (envelope: Escrow_V1_Envelope, frame: Result<Frame, FrameDecodingError>) {
    guard var envelope = try? Escrow_V1_Envelope(serializedBytes: body) else {
        require(false, "SwiftProtobuf no longer reads a body it read before")
        return (Escrow_V1_Envelope(), .success(.empty))
    }
    let proto: Escrow_V1_Frame
    switch envelope.body {
    case .computeRequest(var request):
        proto = request.input
        request.clearInput()
        envelope.computeRequest = request
    case .computeResponse(var response):
        proto = response.output
        response.clearOutput()
        envelope.computeResponse = response
    case .runResponse(var response):
        proto = response.output
        response.clearOutput()
        envelope.runResponse = response
    default:
        return (envelope, .success(.empty))
    }
    return (envelope, Result { () throws(FrameDecodingError) in try Frame(proto) })
}

/// An envelope whose frame is valid, encoded again with that frame and decoded: the same envelope
/// and frame.
func checkRoundTrip(_ received: ReceivedEnvelope) {
    guard case .success(let frame) = received.frame else { return }
    let encoded: ByteBuffer
    // `message(carrying:)` writes the envelope's known fields only: unknown top-level fields of a
    // received envelope (a field number it does not know, or a known one under another wire
    // type) are not sent on. No code forwards received envelopes, so they are not compared.
    var expected = received.envelope
    do {
        switch received.envelope.body {
        case .computeRequest, .computeResponse, .runResponse:
            expected.unknownFields = UnknownStorage()
            encoded = try received.envelope.message(carrying: frame)
        default:
            encoded = try received.envelope.message()
        }
    } catch {
        require(false, "a decoded envelope does not encode again: \(error)")
        return
    }
    var body = encoded
    require(body.readInteger(as: UInt32.self).map(Int.init) == body.readableBytes, "the length prefix is not the body's length")
    let again: (Escrow_V1_Envelope, Result<Frame, FrameDecodingError>)
    do {
        again = try EnvelopeDecoder.read(body)
    } catch {
        require(false, "an encoded envelope does not decode: \(error)")
        return
    }
    require(deterministic(again.0) == deterministic(expected),
            "the envelope changed in a round trip:\n  \(expected.textFormatString())\n  \(again.0.textFormatString())")
    require(same(again.1, received.frame), "the frame changed in a round trip:\n  \(received.frame)\n  \(again.1)")
}

/// The envelope's serialization with map entries in a fixed order: equal bytes, equal envelopes
/// (NaN cells included).
func deterministic(_ envelope: Escrow_V1_Envelope) -> [UInt8] {
    var options = BinaryEncodingOptions()
    options.useDeterministicOrdering = true
    do {
        return try envelope.serializedBytes(options: options)
    } catch {
        require(false, "SwiftProtobuf cannot serialize a decoded envelope: \(error)")
        return []
    }
}

/// Two frame results are the same: equal errors, or frames with equal encodings.
func same(_ a: Result<Frame, FrameDecodingError>, _ b: Result<Frame, FrameDecodingError>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)): x.wireBytes == y.wireBytes
    case (.failure(let x), .failure(let y)): x == y
    default: false
    }
}
