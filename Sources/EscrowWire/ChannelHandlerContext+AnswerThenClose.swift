import NIOCore
import SwiftProtobuf

extension ChannelHandlerContext {
    /// Answers a protocol error (a message, or a run request's module, over the maximum; bytes that
    /// are not an `Envelope`) with `Error{MESSAGE_TOO_LARGE}` or `Error{BAD_REQUEST}` under request
    /// id 0, then closes the connection: the stream can no longer be trusted. For the handler that
    /// owns this context, whose outbound type is `ByteBuffer`.
    public func answerThenClose(_ error: RPCError) {
        var envelope = Escrow_V1_Envelope()
        envelope.error = .with {
            $0.code = switch error {
            case .messageTooLarge, .moduleTooLarge: .messageTooLarge
            default: .badRequest
            }
            $0.message = "\(error)"
        }
        guard let message = try? envelope.message() else {
            close(promise: nil)
            return
        }
        let channel = self.channel
        writeAndFlush(NIOAny(message)).whenComplete { _ in channel.close(promise: nil) }
    }
}
