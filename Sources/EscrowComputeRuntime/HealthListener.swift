import CoreMetrics
import EscrowModules
import EscrowWire
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The compute server's plain-HTTP listener for orchestrators and monitoring, on a port of its own
/// (off unless asked for, `--health-listen`): `GET /healthz` (the process is alive), `GET /readyz`
/// (it takes calls: not draining, below its concurrency limit) and `GET /metrics` (Prometheus text
/// format). It serves nothing else, reads no request body, and never touches a call's data.
final class HealthListener: Sendable {
    private let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    var port: Int { channel.localAddress?.port ?? 0 }

    static func start(host: String, port: Int, state: ServerState, metrics: ServerMetrics, modules: ServerModules,
                      group: any EventLoopGroup) async throws -> HealthListener {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(HealthHandler(state: state, metrics: metrics, modules: modules))
                }
            }
            .bind(host: host, port: port).get()
        return HealthListener(channel: channel)
    }

    func close() async { try? await channel.close() }
}

private final class HealthHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let state: ServerState
    let metrics: ServerMetrics
    let modules: ServerModules

    init(state: ServerState, metrics: ServerMetrics, modules: ServerModules) {
        self.state = state
        self.metrics = metrics
        self.modules = modules
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let (status, type, body): (HTTPResponseStatus, String, [UInt8])
        if head.method != .GET && head.method != .HEAD {
            (status, type, body) = (.methodNotAllowed, "text/plain; charset=utf-8", Array("GET only\n".utf8))
        } else {
            switch path {
            case "/healthz":
                (status, type, body) = (.ok, "text/plain; charset=utf-8", Array("alive\n".utf8))
            case "/readyz":
                let readiness = state.readiness
                (status, type, body) = (readiness == nil ? .ok : .serviceUnavailable, "text/plain; charset=utf-8",
                                        Array((readiness ?? "ready") .utf8) + [0x0A])
            case "/metrics":
                metrics.connections.record(state.connections.count)
                metrics.inFlight.record(state.running)
                metrics.moduleCacheEntries.record(modules.cache.count)
                (status, type, body) = (.ok, "text/plain; version=0.0.4; charset=utf-8", metrics.exposition())
            default:
                (status, type, body) = (.notFound, "text/plain; charset=utf-8", Array("not found: /healthz, /readyz or /metrics\n".utf8))
            }
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let channel = context.channel
        let keepAlive = head.isKeepAlive
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
