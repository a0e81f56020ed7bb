import SwiftProtobuf

/// The envelope bodies that carry a `Frame`, by their field number in `Envelope`
/// (Proto/escrow.proto), with where the frame is inside them: the one place that knows.
enum FrameCarrier: UInt64 {
    case computeRequest = 4
    case computeResponse = 5
    case runResponse = 11

    /// The frame's field number inside the body (`input` or `output`).
    var frameField: UInt64 { self == .computeRequest ? 4 : 1 }

    /// The carrier of `body`; nil for bodies without a frame.
    init?(_ body: Escrow_V1_Envelope.OneOf_Body?) {
        switch body {
        case .computeRequest: self = .computeRequest
        case .computeResponse: self = .computeResponse
        case .runResponse: self = .runResponse
        default: return nil
        }
    }

    /// Takes the frame out of `envelope`'s body (of this kind) and returns it.
    func removeFrame(from envelope: inout Escrow_V1_Envelope) -> Escrow_V1_Frame {
        switch self {
        case .computeRequest:
            defer { envelope.computeRequest.clearInput() }
            return envelope.computeRequest.input
        case .computeResponse:
            defer { envelope.computeResponse.clearOutput() }
            return envelope.computeResponse.output
        case .runResponse:
            defer { envelope.runResponse.clearOutput() }
            return envelope.runResponse.output
        }
    }

    /// The serialization of `envelope`'s body (of this kind) without its frame.
    func bodyWithoutFrame(_ envelope: Escrow_V1_Envelope) throws -> [UInt8] {
        var envelope = envelope
        _ = removeFrame(from: &envelope)
        switch self {
        case .computeRequest: return try envelope.computeRequest.serializedBytes()
        case .computeResponse: return try envelope.computeResponse.serializedBytes()
        case .runResponse: return try envelope.runResponse.serializedBytes()
        }
    }

    /// Sets `envelope`'s body to one of this kind read from `parts`, each a run of whole fields.
    func setBody(of envelope: inout Escrow_V1_Envelope, from parts: [ProtobufByteBuffer]) throws {
        switch self {
        case .computeRequest:
            var body = Escrow_V1_ComputeRequest()
            for part in parts { try body.merge(serializedBytes: part) }
            envelope.computeRequest = body
        case .computeResponse:
            var body = Escrow_V1_ComputeResponse()
            for part in parts { try body.merge(serializedBytes: part) }
            envelope.computeResponse = body
        case .runResponse:
            var body = Escrow_V1_RunResponse()
            for part in parts { try body.merge(serializedBytes: part) }
            envelope.runResponse = body
        }
    }
}
