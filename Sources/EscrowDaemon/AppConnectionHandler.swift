import EscrowCore
import EscrowHost
import EscrowWire
import Logging
import NIOCore
import SwiftProtobuf

/// One app's connection to the daemon: each `RunRequest` runs through `EscrowHost.run` in its own
/// task (several may be in flight, matched by request id), and is answered with a `RunResponse`
/// or a typed `Error` (AWAITING_APPROVAL and the others carry the flow id).
final class AppConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ReceivedEnvelope
    typealias OutboundOut = ByteBuffer

    private let host: EscrowHost
    private let daemon: HostDaemon
    /// Told when runs start and finish: a connection with a run in flight is not idle.
    private let deadlines: ConnectionDeadlineHandler
    private let logger: Logger
    /// `uid N pid M` of the app's process, from the socket.
    private var caller: String?
    /// The program the app's process runs, read once per connection off the event loop.
    private var program: Task<Result<CallerProgram, CallerProgramError>, Never>?

    init(host: EscrowHost, daemon: HostDaemon, deadlines: ConnectionDeadlineHandler, logger: Logger) {
        self.host = host
        self.daemon = daemon
        self.deadlines = deadlines
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        PeerCredentials.read(context.channel)?.whenSuccess { credentials in
            handler.value.caller = credentials.description
            handler.value.program = Task.detached {
                Result { () throws(CallerProgramError) in try CallerProgram.of(pid: credentials.pid) }
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data).envelope
        let id = envelope.requestID
        switch envelope.body {
        case .runRequest(let request):
            daemon.began()
            deadlines.callStarted()
            let daemon = self.daemon
            let deadlines = NIOLoopBound(self.deadlines, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            Self.launch(request, id: id, host: host, caller: caller, program: program, channel: context.channel) {
                daemon.ended()
                eventLoop.execute { deadlines.value.callFinished() }
            }
        case .ping(let ping):
            var reply = Escrow_V1_Envelope()
            reply.requestID = id
            reply.pong = .with { $0.nonce = ping.nonce }
            write(reply, context: context)
        default:
            write(Self.error(id, .badRequest, "an app sends run_request or ping to the escrow daemon"), context: context)
        }
    }

    /// Runs a request in its own task and writes the answer; `finished` is called once the
    /// answer is written (the daemon counts the run as running until then).
    private static func launch(_ request: Escrow_V1_RunRequest, id: UInt64, host: EscrowHost,
                               caller: String?, program: Task<Result<CallerProgram, CallerProgramError>, Never>?,
                               channel: any Channel, finished: @escaping @Sendable () -> Void) {
        Task {
            let (reply, output) = await run(request, id: id, host: host, caller: caller, program: program)
            // Every attempt appended an audit entry: send the new head to the witnesses, in the
            // background (coalesced with other runs' pushes; never delays the answer).
            host.witnessing.schedule()
            guard let message = reply.replyMessage(carrying: output, orElse: { error in
                Self.error(id, .functionFailed, "the output cannot be sent: \(error)")
            }) else {
                finished()
                return
            }
            channel.writeAndFlush(message).whenComplete { _ in finished() }
        }
    }

    /// Runs the dataflow, waiting for the individual's decision when the app asked to.
    private static func run(_ request: Escrow_V1_RunRequest, id: UInt64, host: EscrowHost,
                            caller: String?, program: Task<Result<CallerProgram, CallerProgramError>, Never>?) async
        -> (reply: Escrow_V1_Envelope, output: Frame?) {
        var dataflow: DataflowRequest
        do {
            dataflow = try request.dataflowRequest()
        } catch {
            return (Self.error(id, .badRequest, error.description), nil)
        }
        // A decision is bound to the program that asks: a process the escrow cannot identify is
        // refused, or it could pass for any program.
        switch await program?.value {
        case .success(let identified)?:
            dataflow.program = identified
            dataflow.caller = [caller, identified.description].compactMap { $0 }.joined(separator: ", ")
        case .failure(let error)?:
            return (Self.error(id, .badRequest, error.description), nil)
        case nil:
            return (Self.error(id, .badRequest, "the escrow cannot read the credentials of the process at the other end of its socket"), nil)
        }
        do {
            let result = try await host.run(dataflow, waitingForDecision: request.waitForDecision)
            var reply = Escrow_V1_Envelope()
            reply.requestID = id
            reply.runResponse = .with {
                $0.flowID = result.flowID
                $0.auditSeq = UInt64(result.auditEntry.seq)
            }
            return (reply, result.output)
        } catch {
            var reply = Escrow_V1_Envelope()
            reply.requestID = id
            reply.error = Escrow_V1_Error(AppFailure(hostError: error))
            return (reply, nil)
        }
    }

    static func error(_ id: UInt64, _ code: Escrow_V1_Error.Code, _ message: String) -> Escrow_V1_Envelope {
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = id
        envelope.error = .with {
            $0.code = code
            $0.message = message
        }
        return envelope
    }

    private func write(_ envelope: Escrow_V1_Envelope, context: ChannelHandlerContext) {
        guard let message = try? envelope.message() else { return }
        context.writeAndFlush(wrapOutboundOut(message), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.info("closing an app connection after a protocol error", metadata: ["error": "\(error)"])
        // The app hears why (MESSAGE_TOO_LARGE, BAD_REQUEST) before the connection closes.
        if let error = error as? RPCError { context.answerThenClose(error) } else { context.close(promise: nil) }
    }
}
