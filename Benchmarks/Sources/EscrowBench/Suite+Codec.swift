import EscrowCore
import EscrowWire
import Foundation
import NIOCore
import SwiftProtobuf

// The codec alone: a compute response carrying 1000 pictures of 16 KB (the remote figures'
// large frame), encoded into a send buffer and decoded from a received one, by the RPC's own
// codec (FrameWire) and through SwiftProtobuf's message types, as the RPC did before.
extension Suite {
    func codec() async throws -> [FigureResult] {
        let (_, large) = try Self.remoteInputs()
        let clock = ContinuousClock()
        var reply = Escrow_V1_Envelope()
        reply.requestID = 9
        reply.computeResponse = .with { $0.computeMicros = 7 }

        struct Sample {
            var encode = 0.0, decode = 0.0, messageEncode = 0.0, messageDecode = 0.0
        }
        let samples = try await sampler.collect(
            setUp: { () },
            body: { _ -> Sample in
                var sample = Sample()
                var sent = ByteBuffer()
                sample.encode = try clock.measure { sent = try reply.message(carrying: large) }.seconds
                sent.moveReaderIndex(forwardBy: 4)
                let body = sent
                var decoded: Result<Frame, FrameDecodingError> = .success(.empty)
                sample.decode = try clock.measure { decoded = try EnvelopeDecoder.read(body).1 }.seconds
                guard try decoded.get() == large else { throw BenchError("FrameWire changed the frame") }

                var message = reply
                var serialized: [UInt8] = []
                sample.messageEncode = try clock.measure {
                    message.computeResponse.output = Escrow_V1_Frame(large)
                    serialized = try message.serializedBytes()
                }.seconds
                var frame = Frame.empty
                sample.messageDecode = try clock.measure {
                    frame = try Frame(Escrow_V1_Envelope(serializedBytes: serialized).computeResponse.output)
                }.seconds
                guard frame == large else { throw BenchError("SwiftProtobuf changed the frame") }
                return sample
            },
            tearDown: { _ in }
        )
        let prefix = "codec, 1000 × 16 KB frame"
        return [
            FigureResult(name: "\(prefix): encode, FrameWire", unit: .milliseconds, seconds: samples.map(\.encode)),
            FigureResult(name: "\(prefix): decode, FrameWire", unit: .milliseconds, seconds: samples.map(\.decode)),
            FigureResult(name: "\(prefix): encode, SwiftProtobuf message", unit: .milliseconds, seconds: samples.map(\.messageEncode)),
            FigureResult(name: "\(prefix): decode, SwiftProtobuf message", unit: .milliseconds, seconds: samples.map(\.messageDecode)),
        ]
    }
}
