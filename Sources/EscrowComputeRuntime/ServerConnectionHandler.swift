import EscrowWire
import EscrowCore
import EscrowEgress
import EscrowModules
import CoreMetrics
import Logging
import NIOCore
import NIOSSL
import SwiftProtobuf
import Synchronization

/// One client connection of the compute server: answers hello with the catalog, ping with pong,
/// runs compute requests (several at once, matched by request id) with their deadlines, cancels on
/// request, and answers every failure with an `Error` envelope. A message over the maximum or bytes
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
    /// Told when calls start and finish: a connection with a call in flight is not idle.
    private let deadlines: ConnectionDeadlineHandler
    private let network: any NetworkClient
    /// The compute modules this server runs.
    private let modules: ServerModules
    private let metrics: ServerMetrics
    /// The witness store, when this server is a witness (`--witness-store`).
    let witness: AuditWitnessStore?
    let logger: Logger
    /// Running calls of this connection, by request id, until their function returns (event-loop
    /// confined). `answered` is set when the deadline already answered the call.
    private var running: [UInt64: (task: Task<Void, Never>, deadline: NIOScheduledCallback?, answered: Bool)] = [:]
    /// Whether the client has said hello (its first message must be a Hello).
    private var greeted = false

    init(catalog: FunctionCatalog, catalogMessage: Escrow_V1_Catalog, state: ServerState,
         deadlines: ConnectionDeadlineHandler, network: any NetworkClient, modules: ServerModules,
         metrics: ServerMetrics, witness: AuditWitnessStore? = nil, logger: Logger) {
        self.catalog = catalog
        self.catalogMessage = catalogMessage
        self.state = state
        self.deadlines = deadlines
        self.network = network
        self.modules = modules
        self.metrics = metrics
        self.witness = witness
        self.logger = logger
    }

    static func catalogMessage(_ catalog: FunctionCatalog, serverID: String) -> Escrow_V1_Catalog {
        var message = Escrow_V1_Catalog()
        message.serverID = serverID
        message.functions = catalog.descriptors.map(Escrow_V1_FunctionInfo.init)
        return message
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = unwrapInboundIn(data)
        metrics.bytesIn.increment(by: received.byteCount)
        let envelope = received.envelope
        let id = envelope.requestID
        switch envelope.body {
        case .hello(let hello):
            guard hello.protocolVersion == RPCLimits.protocolVersion else {
                writeThenClose(Self.error(id, .badRequest, "this server speaks protocol version \(RPCLimits.protocolVersion), not \(hello.protocolVersion)"),
                               context: context)
                return
            }
            greeted = true
            logger.info("client connected", metadata: ["peer": "\(context.remoteAddress.map { "\($0)" } ?? "?")",
                                                       "client": "\(hello.clientName)"])
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
            guard greeted else {
                write(Self.error(id, .badRequest, "send a Hello first", function: request.functionID), context: context)
                return
            }
            start(request, input: received.frame, id: id, context: context)
        case .cancel:
            running[id]?.task.cancel()
        case .witnessRequest, .witnessQuery:
            guard greeted else {
                write(Self.error(id, .badRequest, "send a Hello first"), context: context)
                return
            }
            answerWitness(envelope, context: context)
        case .catalog, .computeResponse, .error, .pong, .runRequest, .runResponse, .witnessReply, .witnessState, nil:
            write(Self.error(id, .badRequest, "a client may send hello, compute_request, cancel, ping, witness_request or witness_query"),
                  context: context)
        }
    }

    private func start(_ request: Escrow_V1_ComputeRequest, input decoded: Result<Frame, FrameDecodingError>, id: UInt64,
                       context: ChannelHandlerContext) {
        guard id != 0, running[id] == nil else {
            write(Self.error(id, .badRequest, id == 0 ? "request id 0 is reserved" : "request id \(id) is already in use on this connection",
                             function: request.functionID), context: context)
            return
        }
        let target: Target
        if request.moduleSha256.isEmpty {
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
            target = .function(function)
        } else {
            switch modules.admit(request) {
            case .success(let bytes): target = .module(request, bytes: bytes, modules: modules)
            case .failure(let refusal):
                write(Self.error(id, refusal.code, refusal.message, function: request.functionID), context: context)
                return
            }
        }
        guard case .success(let input) = decoded else {
            if case .failure(let error) = decoded {
                write(Self.error(id, .badRequest, "input frame: \(error)", function: request.functionID), context: context)
            }
            return
        }
        guard request.blockedDomains.count <= Self.maximumBlockedDomains else {
            write(Self.error(id, .badRequest, "\(request.blockedDomains.count) blocked domains; at most \(Self.maximumBlockedDomains) are taken",
                             function: request.functionID), context: context)
            return
        }
        var blocked = DomainSet()
        for domain in request.blockedDomains {
            guard let host = HostName(domain), host.text == domain else {
                write(Self.error(id, .badRequest, "blocked domain '\(DisplayText.escaped(String(domain.prefix(80))))' is not a normalized host name",
                                 function: request.functionID), context: context)
                return
            }
            blocked.insert(host)
        }
        if let refusal = state.admit() {
            write(Self.error(id, refusal, refusal == .overloaded
                ? "\(state.maximumConcurrency) calls are running; try again shortly"
                : "the server is shutting down", function: request.functionID), context: context)
            return
        }

        (request.moduleSha256.isEmpty ? metrics.calls : metrics.moduleCalls).increment()
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let state = self.state
        let reply: @Sendable (ByteBuffer?) -> Void = { message in
            channel.eventLoop.execute { handler.value.finished(id, reply: message, channel: channel, state: state) }
        }
        // The function's requests go through a recorder of this call, reported back with its reply.
        let recorder = EgressRecorder(base: network, blocked: blocked, input: input)
        let call = Call(target: target, input: input, deadlineMs: request.deadlineMs,
                        context: ComputeContext(parameters: ComputeParameters(request.parameters), network: recorder),
                        recorder: recorder, id: id, functionID: request.functionID)
        let task = Self.launch(call, metrics: metrics, reply: reply)
        // The deadline runs on the event loop, not in the task pool: CPU-bound calls filling the
        // pool cannot delay it. When it fires first, the caller gets DEADLINE_EXCEEDED at once and
        // the function is told to stop; the call still counts as running until it returns.
        // (Only when the event loop is shutting down is there no timer: the call ends with it.)
        let deadline = request.deadlineMs == 0 ? nil : try? context.eventLoop.scheduleCallback(
            in: .milliseconds(Int64(clamping: request.deadlineMs)),
            handler: EventLoopTimer {
                handler.value.expire(id, after: request.deadlineMs, functionID: request.functionID, recorder: recorder,
                                     channel: channel)
            })
        running[id] = (task, deadline, false)
        deadlines.callStarted()
    }

    /// A call's deadline passed before its reply (on the event loop).
    private func expire(_ id: UInt64, after milliseconds: UInt64, functionID: String, recorder: EgressRecorder,
                        channel: any Channel) {
        guard let call = running[id], !call.answered else { return }
        running[id]?.answered = true
        call.task.cancel()
        let reply = Self.error(id, .deadlineExceeded, "the call did not finish within its deadline of \(milliseconds) ms",
                               function: functionID, egress: recorder.observations)
        if channel.isActive, let message = try? reply.message() {
            channel.writeAndFlush(message, promise: nil)
        }
    }

    /// What a call runs: a built-in function, or a module (checked in the call's task when the
    /// server does not have it yet).
    private enum Target: Sendable {
        case function(RegisteredFunction)
        case module(Escrow_V1_ComputeRequest, bytes: [UInt8]?, modules: ServerModules)
    }

    /// One admitted compute call.
    private struct Call: Sendable {
        let target: Target
        let input: Frame
        let deadlineMs: UInt64
        let context: ComputeContext
        let recorder: EgressRecorder
        let id: UInt64
        let functionID: String
    }

    /// Runs the call in a task of its own, which also encodes the reply (nil when it cannot be
    /// encoded), so a large output is not serialized on the event loop.
    private static func launch(_ call: Call, metrics: ServerMetrics, reply: @escaping @Sendable (ByteBuffer?) -> Void) -> Task<Void, Never> {
        Task {
            let started = ContinuousClock.now
            var (envelope, output) = await compute(call, id: call.id, functionID: call.functionID)
            metrics.callDuration.recordNanoseconds(Int64(clamping: (ContinuousClock.now - started).microseconds * 1000))
            if case .error(let error)? = envelope.body { metrics.answered(error.code) } else { metrics.answered(nil) }
            let egress = call.recorder.observations.map(Escrow_V1_EgressRequest.init)
            switch envelope.body {
            case .computeResponse(var response)?:
                response.egress = egress
                envelope.computeResponse = response
            case .error(var error)?:
                error.egress = egress
                envelope.error = error
            default:
                break
            }
            reply(envelope.replyMessage(carrying: output) { error in
                Self.error(call.id, .functionFailed, "the function's output cannot be sent: \(error)", function: call.functionID,
                           egress: call.recorder.observations)
            })
        }
    }

    /// A call's reply is ready (on the event loop). The call counts as running until its reply
    /// is written, so a graceful shutdown never closes a connection under an unsent reply.
    private func finished(_ id: UInt64, reply: ByteBuffer?, channel: any Channel, state: ServerState) {
        deadlines.callFinished()
        let call = running.removeValue(forKey: id)
        guard let call, !call.answered else {
            // Already answered: its deadline passed.
            state.finished()
            return
        }
        call.deadline?.cancel()
        guard channel.isActive else {
            state.finished()
            return
        }
        guard let reply else {
            state.finished()
            logger.error("cannot encode a reply", metadata: ["request": "\(id)"])
            return
        }
        metrics.bytesOut.increment(by: reply.readableBytes)
        channel.writeAndFlush(reply).whenComplete { _ in state.finished() }
    }

    /// Runs the function or module; the reply is a response with the output it carries, or a
    /// typed error.
    private static func compute(_ call: Call, id: UInt64, functionID: String) async -> (reply: Escrow_V1_Envelope, output: Frame?) {
        let clock = ContinuousClock()
        let started = clock.now
        do {
            let output: Frame
            var ran = ""
            switch call.target {
            case .function(let function):
                output = try await function(call.input, context: call.context)
            case .module(let request, let bytes, let modules):
                let module: ComputeModule
                // Bytes to check (a module new to the server) are parsed, validated and compiled:
                // off the cooperative pool, as the host does. A cached module is only looked up.
                let found = if let bytes {
                    try await ModuleSandbox.shared.offPool { modules.module(request, bytes: bytes) }
                } else {
                    modules.module(request, bytes: nil)
                }
                switch found {
                case .success(let found): module = found
                case .failure(let refusal): return (Self.error(id, refusal.code, refusal.message, function: functionID), nil)
                }
                var limits = modules.policy.limits
                if call.deadlineMs > 0 { limits.wallTime = min(limits.wallTime, .milliseconds(Int64(clamping: call.deadlineMs))) }
                // A module's log lines may hold the data it reads: a server's operator never sees them.
                output = try await ModuleSandbox.shared.run(module, input: call.input, context: call.context, limits: limits)
                ran = module.sha256
            }
            var reply = Escrow_V1_Envelope()
            reply.requestID = id
            reply.computeResponse = .with {
                $0.computeMicros = UInt64(max(0, (clock.now - started).microseconds))
                $0.moduleSha256 = ran
            }
            return (reply, output)
        } catch is CancellationError {
            return (Self.error(id, .cancelled, "the call was cancelled", function: functionID), nil)
        } catch let error as FrameError {
            return (Self.error(id, .inputMismatch, "\(error)", function: functionID), nil)
        } catch let error as ModuleRunError {
            let limit: Bool = switch error {
            case .outOfFuel, .memoryLimit, .wallTime: true
            default: false
            }
            return (Self.error(id, .functionFailed, error.reason + (limit ? " on this server (its operator sets it)" : ""),
                               function: functionID), nil)
        } catch let error as ComputeError {
            if case .invalidParameter = error { return (Self.error(id, .badRequest, "\(error)", function: functionID), nil) }
            return (Self.error(id, .functionFailed, "\(error)", function: functionID), nil)
        } catch {
            return (Self.error(id, .functionFailed, "\(error)", function: functionID), nil)
        }
    }

    /// The most blocked domains a compute request may carry.
    static let maximumBlockedDomains = 100_000

    static func error(_ id: UInt64, _ code: Escrow_V1_Error.Code, _ message: String, function: String = "",
                      egress: [EgressObservation] = []) -> Escrow_V1_Envelope {
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = id
        envelope.error = .with {
            $0.code = code
            $0.message = message
            $0.functionID = function
            $0.egress = egress.map(Escrow_V1_EgressRequest.init)
        }
        return envelope
    }

    func write(_ envelope: Escrow_V1_Envelope, context: ChannelHandlerContext) {
        if case .error(let error)? = envelope.body { metrics.answered(error.code) }
        do {
            let message = try envelope.message()
            metrics.bytesOut.increment(by: message.readableBytes)
            context.writeAndFlush(wrapOutboundOut(message), promise: nil)
        } catch {
            logger.error("cannot encode a reply", metadata: ["error": "\(error)"])
        }
    }

    private func writeThenClose(_ envelope: Escrow_V1_Envelope, context: ChannelHandlerContext) {
        let channel = context.channel
        guard let message = try? envelope.message() else {
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(message)).whenComplete { _ in channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case let error as RPCError:
            logger.info("closing a connection after a protocol error", metadata: ["error": "\(error)"])
            context.answerThenClose(error)
        default:
            // Mostly failed TLS handshakes (no client certificate, another CA, TLS 1.2): worth an
            // operator's eye, and never carrying payload.
            logger.info("closing a connection", metadata: ["peer": "\(context.remoteAddress.map { "\($0)" } ?? "?")",
                                                           "error": "\(error)"])
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for call in running.values {
            call.task.cancel()
            call.deadline?.cancel()
        }
        context.fireChannelInactive()
    }
}

extension Duration {
    var microseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}
