import Logging
import NIOCore
import NIOTLS

/// Closes a connection that says nothing in time: a TLS handshake not finished within the
/// handshake timeout, no first request within the first-request timeout after it, or no request
/// for the idle timeout while none of the connection's calls runs (`ConnectionLimits`).
///
/// Sits between the `EnvelopeDecoder` and the connection's handler, which tells it when a call
/// starts and finishes (`callStarted()`, `callFinished()`), so a connection waiting for a long
/// call is never idle. Without TLS (`handshake: false`) the first-request timeout runs from
/// the moment the connection is accepted. Closing is logged at debug level only: a flood of
/// silent connections must not flood the log.
///
/// Thread safety: confined to its channel's event loop, like every handler; `callStarted()` and
/// `callFinished()` must be called there too.
public final class ConnectionDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ReceivedEnvelope
    public typealias InboundOut = ReceivedEnvelope

    private var deadlines: ConnectionDeadlines
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?

    /// - Parameter handshake: whether the connection starts with a TLS handshake (a
    ///   `NIOSSLServerHandler` before this one).
    public init(limits: ConnectionLimits, handshake: Bool, logger: Logger) {
        deadlines = ConnectionDeadlines(limits: limits, handshake: handshake, now: .now())
        self.logger = logger
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        check()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent {
            deadlines.handshakeCompleted(at: .now())
            check()
        }
        context.fireUserInboundEventTriggered(event)
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After the first request, the idle timeout replaces the first-request deadline.
        if deadlines.requestReceived(at: .now()) { check() }
        context.fireChannelRead(data)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    /// A call of this connection started: the connection is not idle until it finishes.
    public func callStarted() {
        deadlines.callStarted()
    }

    /// A call of this connection finished (its answer written, or the connection gone).
    public func callFinished() {
        deadlines.callFinished(at: .now())
    }

    /// Closes the connection if it overran its time, otherwise sets the timer for the next check.
    private func check() {
        guard let context else { return }
        timer?.cancel()
        switch deadlines.check(at: .now()) {
        case .checkAgain(let deadline):
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(deadline: deadline) { handler.value.check() }
        case .close(let overrun):
            timer = nil
            logger.debug("closing a connection", metadata: ["peer": "\(context.remoteAddress.map { "\($0)" } ?? "?")",
                                                            "reason": "\(overrun)"])
            context.close(promise: nil)
        }
    }
}
