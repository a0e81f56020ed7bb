import EscrowCore
import Logging
import NIOCore
import NIOSSL
import SwiftProtobuf
import Synchronization

/// One client connection of the compute server: answers hello with the catalog, ping with pong,
/// runs compute requests (several at once, matched by request id) with their deadlines, cancels on
/// request, and answers every failure with an `Error` envelope. A frame over the maximum or bytes
/// that are not protobuf get an error envelope, then the connection is closed; other connections
/// are not affected.
///
/// Lives on its channel's event loop; calls run in tasks and write back through the channel.
final class ServerConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ReceivedEnvelope
    typealias OutboundOut = ByteBuffer

    private let catalog: FunctionCatalog
    private let catalogMessage: Escrow_V1_Catalog
    private let state: ServerState
    private let logger: Logger
    /// Running calls of this connection, by request id (event-loop confined).
    private var running: [UInt64: Task<Void, Never>] = [:]

    init(catalog: FunctionCatalog, catalogMessage: Escrow_V1_Catalog, state: ServerState, logger: Logger) {
        self.catalog = catalog
        self.catalogMessage = catalogMessage
        self.state = state
        self.logger = logger
    }

    static func catalogMessage(_ catalog: FunctionCatalog, serverID: String) -> Escrow_V1_Catalog {
        var message = Escrow_V1_Catalog()
        message.serverID = serverID
        message.functions = catalog.descriptors.map(Escrow_V1_FunctionInfo.init)
        return message
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data).envelope
        let id = envelope.requestID
        switch envelope.body {
        case .hello:
            var reply = Escrow_V1_Envelope()
            reply.requestID = id
            reply.catalog = catalogMessage
            write(reply, context: context)
        case .ping(let ping):
            var reply = Escrow_V1_Envelope()
            reply.requestID = id
            reply.pong = .with { $0.nonce = ping.nonce }
            write(reply, context: context)
        case .computeRequest(let request):
            start(request, id: id, context: context)
        case .cancel:
            running[id]?.cancel()
        case .catalog, .computeResponse, .error, .pong, nil:
            write(Self.error(id, .badRequest, "a client may send hello, compute_request, cancel or ping"), context: context)
        }
    }

    private func start(_ request: Escrow_V1_ComputeRequest, id: UInt64, context: ChannelHandlerContext) {
        guard id != 0, running[id] == nil else {
            write(Self.error(id, .badRequest, id == 0 ? "request id 0 is reserved" : "request id \(id) is already in use on this connection",
                             function: request.functionID), context: context)
            return
        }
        let lookup = Result { () throws(CatalogError) in try catalog.function(request.functionID) }
        guard case .success(let function) = lookup else {
            if case .failure(let error) = lookup {
                write(Self.error(id, .unknownFunction, "\(error)", function: request.functionID), context: context)
            }
            return
        }
        let descriptor = function.descriptor
        guard request.codeDigest == descriptor.codeDigest, request.functionVersion == Int64(descriptor.version) else {
            write(Self.error(id, .digestMismatch,
                             "this server runs \(descriptor.id)@\(descriptor.version) with digest \(descriptor.codeDigest), not @\(request.functionVersion) \(request.codeDigest)",
                             function: request.functionID), context: context)
            return
        }
        let decoded = Result { () throws(FrameDecodingError) in try Frame(request.input) }
        guard case .success(let input) = decoded else {
            if case .failure(let error) = decoded {
                write(Self.error(id, .badRequest, "input frame: \(error)", function: request.functionID), context: context)
            }
            return
        }
        if let refusal = state.admit() {
            write(Self.error(id, refusal, refusal == .overloaded
                ? "\(state.maximumConcurrency) calls are running; try again shortly"
                : "the server is shutting down", function: request.functionID), context: context)
            return
        }

        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let reply: @Sendable (Escrow_V1_Envelope) -> Void = { envelope in
            channel.eventLoop.execute { handler.value.finished(id, reply: envelope, channel: channel) }
        }
        let call = Call(function: function, input: input, parameters: ComputeParameters(request.parameters),
                        deadline: request.deadlineMs > 0 ? .milliseconds(Int64(clamping: request.deadlineMs)) : nil,
                        id: id, functionID: request.functionID)
        running[id] = Self.launch(call, state: state, reply: reply)
    }

    /// One admitted compute call.
    private struct Call: Sendable {
        let function: RegisteredFunction
        let input: Frame
        let parameters: ComputeParameters
        let deadline: Duration?
        let id: UInt64
        let functionID: String
    }

    private static func launch(_ call: Call, state: ServerState, reply: @escaping @Sendable (Escrow_V1_Envelope) -> Void) -> Task<Void, Never> {
        Task {
            let envelope = await compute(call.function, input: call.input, parameters: call.parameters,
                                         deadline: call.deadline, id: call.id, functionID: call.functionID)
            state.finished()
            reply(envelope)
        }
    }

    /// A call's reply is ready (on the event loop).
    private func finished(_ id: UInt64, reply: Escrow_V1_Envelope, channel: any Channel) {
        running.removeValue(forKey: id)
        guard channel.isActive else { return }
        do {
            channel.writeAndFlush(try reply.frame(allocator: channel.allocator), promise: nil)
        } catch {
            logger.error("cannot encode a reply", metadata: ["error": "\(error)"])
        }
    }

    /// Runs the function with its deadline; the reply is a response or a typed error.
    private static func compute(_ function: RegisteredFunction, input: Frame, parameters: ComputeParameters,
                                deadline: Duration?, id: UInt64, functionID: String) async -> Escrow_V1_Envelope {
        let clock = ContinuousClock()
        let started = clock.now
        let work = Task { try await function(input, context: ComputeContext(parameters: parameters)) }
        let outcome: Result<Frame, any Error> = await withTaskCancellationHandler {
            await FirstOf.result(work, deadline: deadline)
        } onCancel: {
            work.cancel()
        }
        switch outcome {
        case .success(let output):
            var reply = Escrow_V1_Envelope()
            reply.requestID = id
            reply.computeResponse = .with {
                $0.output = Escrow_V1_Frame(output)
                $0.computeMicros = UInt64(max(0, (clock.now - started).microseconds))
            }
            return reply
        case .failure(let error as RPCError):
            if case .deadlineExceeded = error { return Self.error(id, .deadlineExceeded, "\(error)", function: functionID) }
            return Self.error(id, .functionFailed, "\(error)", function: functionID)
        case .failure(is CancellationError):
            return Self.error(id, .cancelled, "the call was cancelled", function: functionID)
        case .failure(let error as FrameError):
            return Self.error(id, .inputMismatch, "\(error)", function: functionID)
        case .failure(let error as ComputeError):
            if case .invalidParameter = error { return Self.error(id, .badRequest, "\(error)", function: functionID) }
            return Self.error(id, .functionFailed, "\(error)", function: functionID)
        case .failure(let error):
            return Self.error(id, .functionFailed, "\(error)", function: functionID)
        }
    }

    static func error(_ id: UInt64, _ code: Escrow_V1_Error.Code, _ message: String, function: String = "") -> Escrow_V1_Envelope {
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = id
        envelope.error = .with {
            $0.code = code
            $0.message = message
            $0.functionID = function
        }
        return envelope
    }

    private func write(_ envelope: Escrow_V1_Envelope, context: ChannelHandlerContext) {
        do {
            context.writeAndFlush(wrapOutboundOut(try envelope.frame(allocator: context.channel.allocator)), promise: nil)
        } catch {
            logger.error("cannot encode a reply", metadata: ["error": "\(error)"])
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case let error as RPCError:
            let code: Escrow_V1_Error.Code = if case .frameTooLarge = error { .frameTooLarge } else { .badRequest }
            logger.info("closing a connection after a protocol error", metadata: ["error": "\(error)"])
            let frame = try? Self.error(0, code, "\(error)").frame(allocator: context.channel.allocator)
            if let frame {
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        default:
            logger.debug("closing a connection", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for task in running.values { task.cancel() }
        context.fireChannelInactive()
    }
}

/// The result of a task, or a deadline error when the deadline comes first (without waiting for a
/// function that does not stop when cancelled).
enum FirstOf {
    static func result(_ work: Task<Frame, any Error>, deadline: Duration?) async -> Result<Frame, any Error> {
        guard let deadline else { return await work.result }
        return await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            Task { once.resume(await work.result) }
            Task {
                try? await Task.sleep(for: deadline)
                work.cancel()
                once.resume(.failure(RPCError.deadlineExceeded(seconds: Double(deadline.components.seconds)
                    + Double(deadline.components.attoseconds) / 1e18)))
            }
        }
    }

    /// Resumes a continuation with the first result it is given; later ones are ignored.
    private final class ResumeOnce: Sendable {
        private let continuation: Mutex<CheckedContinuation<Result<Frame, any Error>, Never>?>

        init(_ continuation: CheckedContinuation<Result<Frame, any Error>, Never>) {
            self.continuation = Mutex(continuation)
        }

        func resume(_ result: Result<Frame, any Error>) {
            continuation.withLock { pending in
                pending?.resume(returning: result)
                pending = nil
            }
        }
    }
}

extension Duration {
    var microseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}
