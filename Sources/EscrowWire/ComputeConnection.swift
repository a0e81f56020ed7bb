import EscrowCore
import EscrowSockets
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SwiftProtobuf
import Synchronization

/// What a remote compute call returned, with what it cost on the wire.
public struct RemoteComputeResult: Sendable {
    public let output: Frame
    /// Bytes of the request message sent (length prefix included).
    public let bytesSent: Int
    /// Bytes of the response message received.
    public let bytesReceived: Int
    /// Round trip, from sending the request to decoding the response.
    public let latency: Duration
    /// Time the server spent in the function.
    public let computeTime: Duration
    /// For a call of a compute module: the SHA-256 of the module the server says it ran.
    public let moduleSHA256: String
}

/// A compute module a call runs: its digest, and its bytes when the server needs them.
public struct ModuleCall: Sendable {
    public let sha256: String
    public let bytes: [UInt8]?

    public init(sha256: String, bytes: [UInt8]? = nil) {
        self.sha256 = sha256
        self.bytes = bytes
    }
}

/// One TLS connection from an escrow host to a compute server. Several calls may be in flight at
/// once; each is matched to its answer by request id and has its own deadline. When the
/// connection closes, every pending call fails with `RPCError.connectionClosed`.
///
/// Thread safety: all methods may be called from any task.
public final class ComputeConnection: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<ClientConnectionHandler>
    private let nextID = Mutex<UInt64>(1)

    private init(channel: any Channel, handler: NIOLoopBound<ClientConnectionHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Connects, completes the TLS handshake (verifying the server's chain and `serverName`
    /// against the CA in `tls`, presenting the client certificate).
    ///
    /// - Throws: `RPCError.connectionFailed` with the reason (address, TLS, certificates).
    public static func connect(host: String, port: Int, serverName: String, tls: TLSFiles,
                               group: any EventLoopGroup, maximumMessageLength: Int = RPCLimits.defaultMaximumMessageLength,
                               connectTimeout: Duration = .seconds(10)) async throws -> ComputeConnection {
        let context = try tls.clientContext()
        let bootstrap = ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(TimeAmount(connectTimeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sslHandler = try NIOSSLClientHandler._makeSSLClientHandler(
                        context: context, serverHostname: serverName,
                        additionalPeerCertificateVerificationCallback: ServerNameCheck.callback(serverName: serverName))
                    try channel.pipeline.syncOperations.addHandler(sslHandler)
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeDecoder(maximumMessageLength: maximumMessageLength)))
                    try channel.pipeline.syncOperations.addHandler(ClientConnectionHandler())
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(hostOrLiteral: host, port: port).get()
        } catch {
            throw RPCError.connectionFailed("\(host):\(port): \(SocketFailure.reason(error))")
        }
        let handler: NIOLoopBound<ClientConnectionHandler>
        do {
            handler = try await channel.eventLoop.submit {
                NIOLoopBound(try channel.pipeline.syncOperations.handler(type: ClientConnectionHandler.self), eventLoop: channel.eventLoop)
            }.get()
        } catch {
            // The TLS handshake failed so fast that the pipeline is already gone (a server refusing
            // the client certificate closes the connection right after the handshake).
            try? await channel.close()
            throw RPCError.connectionFailed("\(host):\(port): the connection closed during the TLS handshake")
        }
        return ComputeConnection(channel: channel, handler: handler)
    }

    /// Connects to the escrow host daemon's Unix socket (no TLS: the socket is mode 0600 in the
    /// individual's escrow home, and the daemon reads the caller's credentials from it).
    ///
    /// - Throws: `RPCError.connectionFailed` when nothing listens at `path`.
    public static func connect(unixSocket path: String, group: any EventLoopGroup,
                               maximumMessageLength: Int = RPCLimits.defaultMaximumMessageLength) async throws -> ComputeConnection {
        // The handler is kept as it is added, not looked up afterwards: the daemon may already
        // have closed the connection by then (a deadline passed on a loaded machine, or over its
        // maximum), and a call on it then fails as a closed connection, which the SDK reopens.
        let added = AddedHandler()
        let bootstrap = ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = ClientConnectionHandler()
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeDecoder(maximumMessageLength: maximumMessageLength)))
                    try channel.pipeline.syncOperations.addHandler(handler)
                    added.handler.withLock { $0 = NIOLoopBound(handler, eventLoop: channel.eventLoop) }
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(unixDomainSocketPath: path).get()
        } catch {
            throw RPCError.connectionFailed("\(path): \(SocketFailure.reason(error))")
        }
        guard let handler = added.handler.withLock({ $0 }) else {
            try? await channel.close()
            throw RPCError.connectionFailed("\(path): the connection was set up without its handler")
        }
        return ComputeConnection(channel: channel, handler: handler)
    }

    /// Asks the escrow host to run a dataflow (on the daemon's socket).
    ///
    /// - Throws: `RPCError.remote` with the host's error code (AWAITING_APPROVAL, DENIED, …) and,
    ///   for decisions, the flow id in the message's envelope; `.deadlineExceeded`, `.connectionClosed`.
    public func run(_ request: Escrow_V1_RunRequest, deadline: Duration) async throws -> (response: Escrow_V1_RunResponse, output: Frame) {
        var envelope = Escrow_V1_Envelope()
        envelope.runRequest = request
        let reply = try await call(envelope, deadline: deadline)
        guard case .runResponse(let response) = reply.envelope.envelope.body else {
            throw RPCError.invalidMessage("the host answered a run request with something other than a run response")
        }
        do {
            return (response, try reply.envelope.frame.get())
        } catch {
            throw RPCError.invalidMessage("the output frame: \(error)")
        }
    }

    /// Says hello and returns the server's catalog. The TLS handshake completes here at the latest,
    /// so a certificate problem surfaces as `RPCError.connectionFailed`.
    public func hello(clientName: String, deadline: Duration = .seconds(10)) async throws -> Escrow_V1_Catalog {
        var envelope = Escrow_V1_Envelope()
        envelope.hello = .with {
            $0.clientName = clientName
            $0.protocolVersion = RPCLimits.protocolVersion
        }
        let reply = try await call(envelope, deadline: deadline)
        guard case .catalog(let catalog) = reply.envelope.envelope.body else {
            throw RPCError.invalidMessage("the server answered hello with something other than its catalog")
        }
        return catalog
    }

    /// Runs `function` on the server over `input`.
    ///
    /// - Throws: `RPCError.remote` with the server's error code, `.deadlineExceeded`,
    ///   `.connectionClosed`, or `.invalidMessage` for an answer that cannot be decoded.
    ///
    /// - Parameters:
    ///   - blockedDomains: domains the server's network client must refuse the function.
    ///   - egress: handed the requests the function made, as the server reports them, whether
    ///     the call succeeded or failed (not called when the server reported none).
    ///   - module: for a compute module, its digest (and bytes, when the server answered
    ///     MODULE_NEEDED); `function` is then the module's descriptor.
    ///   - sent: called once the request has been written to the connection. A call that fails
    ///     before it was never delivered: the server cannot have run it.
    public func compute(_ function: FunctionDescriptor, input: Frame, parameters: ComputeParameters,
                        blockedDomains: [String] = [], module: ModuleCall? = nil, deadline: Duration,
                        sent: (@Sendable () -> Void)? = nil,
                        egress: @Sendable ([EgressObservation]) -> Void = { _ in }) async throws -> RemoteComputeResult {
        var envelope = Escrow_V1_Envelope()
        envelope.computeRequest = .with {
            $0.functionID = function.id
            $0.functionVersion = Int64(function.version)
            $0.codeDigest = function.codeDigest
            $0.parameters = parameters.values
            $0.blockedDomains = blockedDomains
            if let module {
                $0.moduleSha256 = module.sha256
                if let bytes = module.bytes { $0.module = Data(bytes) }
            }
            $0.deadlineMs = UInt64(max(1, deadline.components.seconds * 1000 + deadline.components.attoseconds / 1_000_000_000_000_000))
        }
        let clock = ContinuousClock()
        let started = clock.now
        // The server answers DEADLINE_EXCEEDED itself; the client waits a little longer for that
        // answer (its own timer is for a server that answers nothing).
        let reply = try await call(envelope, carrying: input, deadline: deadline + .seconds(2), sent: sent) { error in
            if !error.egress.isEmpty { egress(Escrow_V1_EgressRequest.observations(error.egress)) }
        }
        guard case .computeResponse(let response) = reply.envelope.envelope.body else {
            throw RPCError.invalidMessage("the server answered a compute request with something other than a response")
        }
        let output: Frame
        do {
            output = try reply.envelope.frame.get()
        } catch {
            throw RPCError.invalidMessage("the output frame: \(error)")
        }
        if !response.egress.isEmpty { egress(Escrow_V1_EgressRequest.observations(response.egress)) }
        return RemoteComputeResult(output: output, bytesSent: reply.bytesSent, bytesReceived: reply.envelope.byteCount,
                                   latency: clock.now - started, computeTime: .microseconds(Int64(response.computeMicros)),
                                   moduleSHA256: response.moduleSha256)
    }

    /// Sends a ping and waits for the pong.
    public func ping(deadline: Duration = .seconds(5)) async throws {
        var envelope = Escrow_V1_Envelope()
        envelope.ping = .with { $0.nonce = 42 }
        let reply = try await call(envelope, deadline: deadline)
        guard case .pong = reply.envelope.envelope.body else { throw RPCError.invalidMessage("no pong") }
    }

    /// Whether the connection is still open.
    public var isActive: Bool { channel.isActive }

    /// Runs `body` with this connection and closes it afterwards, also when `body` throws.
    public func closing<T>(after body: (ComputeConnection) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }

    /// Closes the connection; pending calls fail with `RPCError.connectionClosed`.
    public func close() async {
        try? await channel.close()
    }

    /// Closes the connection once no call is waiting on it (at once when none is): the way to
    /// retire a connection other tasks may still be using.
    public func closeWhenIdle() {
        let channel = self.channel
        let handler = self.handler
        channel.eventLoop.execute {
            handler.value.closeWhenIdle(channel)
        }
    }

    /// Sends `envelope` (its body carrying `frame`, when given) with a fresh request id and waits
    /// for the envelope with the same id.
    /// `sent` is called once the message is written to the connection; `failed` sees an error
    /// the other side answered with, before it is thrown.
    func call(_ envelope: Escrow_V1_Envelope, carrying carried: Frame? = nil, deadline: Duration,
              sent: (@Sendable () -> Void)? = nil,
              failed: (Escrow_V1_Error) -> Void = { _ in }) async throws -> (envelope: ReceivedEnvelope, bytesSent: Int) {
        let id = nextID.withLock { id -> UInt64 in
            defer { id += 1 }
            return id
        }
        var envelope = envelope
        envelope.requestID = id
        let message = try carried.map(envelope.message(carrying:)) ?? envelope.message()
        let bytesSent = message.readableBytes
        let channel = self.channel
        let handler = self.handler
        let received: ReceivedEnvelope = try await withCheckedThrowingContinuation { continuation in
            channel.eventLoop.execute {
                guard channel.isActive else {
                    // Say why the connection closed (a TLS failure, say) when it is known.
                    continuation.resume(throwing: handler.value.closedBecause ?? RPCError.connectionClosed)
                    return
                }
                let timeout: NIOScheduledCallback
                do {
                    timeout = try channel.eventLoop.scheduleCallback(in: TimeAmount(deadline), handler: EventLoopTimer {
                        guard handler.value.fail(id, with: RPCError.deadlineExceeded(seconds: Double(deadline.components.seconds))) else { return }
                        var cancel = Escrow_V1_Envelope()
                        cancel.requestID = id
                        cancel.cancel = Escrow_V1_Cancel()
                        if let message = try? cancel.message() { channel.writeAndFlush(message, promise: nil) }
                    })
                } catch {
                    // The event loop is shutting down.
                    continuation.resume(throwing: RPCError.connectionClosed)
                    return
                }
                handler.value.register(id, continuation: continuation, timeout: timeout)
                channel.writeAndFlush(message).whenComplete { result in
                    switch result {
                    case .success: sent?()
                    case .failure(let error): _ = handler.value.fail(id, with: RPCError.connectionFailed("\(error)"))
                    }
                }
            }
        }
        if case .error(let error) = received.envelope.body {
            failed(error)
            if !error.flowID.isEmpty { throw RPCError.decision(code: error.code, flow: error.flowID, message: error.message) }
            throw RPCError.remote(code: error.code, message: error.message)
        }
        return (received, bytesSent)
    }
}

/// The client handler a channel initializer added, handed to the task that connected.
private final class AddedHandler: Sendable {
    let handler = Mutex<NIOLoopBound<ClientConnectionHandler>?>(nil)
}

/// The client side of a connection: pending calls by request id (event-loop confined).
final class ClientConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ReceivedEnvelope

    private var pending: [UInt64: (continuation: CheckedContinuation<ReceivedEnvelope, any Error>, timeout: NIOScheduledCallback)] = [:]
    /// Why the connection closed, once it has.
    private(set) var closedBecause: (any Error)?
    /// The channel to close when the last pending call is answered (`closeWhenIdle`).
    private var retiring: (any Channel)?

    func closeWhenIdle(_ channel: any Channel) {
        if pending.isEmpty {
            channel.close(promise: nil)
        } else {
            retiring = channel
        }
    }

    /// Closes a retiring connection once nothing waits on it.
    private func closeIfRetiredAndIdle() {
        if pending.isEmpty, let channel = retiring {
            retiring = nil
            channel.close(promise: nil)
        }
    }

    func register(_ id: UInt64, continuation: CheckedContinuation<ReceivedEnvelope, any Error>, timeout: NIOScheduledCallback) {
        if let closedBecause {
            timeout.cancel()
            continuation.resume(throwing: closedBecause)
            return
        }
        pending[id] = (continuation, timeout)
    }

    /// Fails the pending call `id`; false when it was no longer pending.
    @discardableResult
    func fail(_ id: UInt64, with error: any Error) -> Bool {
        guard let call = pending.removeValue(forKey: id) else { return false }
        call.timeout.cancel()
        call.continuation.resume(throwing: error)
        closeIfRetiredAndIdle()
        return true
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = unwrapInboundIn(data)
        let id = received.envelope.requestID
        if id == 0, case .error(let error) = received.envelope.body {
            // An error for no call in particular: the server is closing the connection.
            failAll(RPCError.remote(code: error.code, message: error.message))
            return
        }
        guard let call = pending.removeValue(forKey: id) else { return }
        call.timeout.cancel()
        call.continuation.resume(returning: received)
        closeIfRetiredAndIdle()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(error is RPCError ? error : RPCError.connectionFailed("\(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(RPCError.connectionClosed)
        context.fireChannelInactive()
    }

    private func failAll(_ error: any Error) {
        if closedBecause == nil { closedBecause = error }
        let calls = pending
        pending = [:]
        for call in calls.values {
            call.timeout.cancel()
            call.continuation.resume(throwing: error)
        }
    }
}

/// A deadline on an event loop: `scheduleCallback` with this runs `fire` there once, unless
/// cancelled first. Each call of the RPC sets one on each side; `scheduleTask` made a promise
/// and a future for each, which showed in the profile of small calls.
package struct EventLoopTimer: NIOScheduledCallbackHandler, Sendable {
    let fire: @Sendable () -> Void

    package init(fire: @escaping @Sendable () -> Void) {
        self.fire = fire
    }

    package func handleScheduledCallback(eventLoop: some EventLoop) {
        fire()
    }
}
