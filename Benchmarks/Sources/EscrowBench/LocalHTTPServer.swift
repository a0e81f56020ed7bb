import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A small HTTP/1.1 server on 127.0.0.1 for the client comparison, on an event loop of its own:
/// every path answers a 41-byte JSON body, except `/redirect`, which answers `302 Found` to
/// `/small`. Keeps a connection open when the client asks to (HTTP/1.1 keep-alive) and closes
/// it after the response when the client sends `Connection: close`. Counts connections and
/// requests, so a benchmark can check what a client really did. With a TLS context, it speaks
/// HTTPS only.
final class LocalHTTPServer: Sendable {
    static let body = #"{"temperature":12.5,"condition":"cloudy"}"#

    final class Counters: Sendable {
        let connections = Atomic<Int>(0)
        let requests = Atomic<Int>(0)
    }

    let port: Int
    let counters: Counters
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    private init(port: Int, counters: Counters, channel: any Channel, group: MultiThreadedEventLoopGroup) {
        self.port = port
        self.counters = counters
        self.channel = channel
        self.group = group
    }

    static func start(tls: NIOSSLContext? = nil) async throws -> LocalHTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let counters = Counters()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                counters.connections.add(1, ordering: .relaxed)
                return channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(Responder(counters: counters))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw BenchError("the HTTP server has no port") }
        return LocalHTTPServer(port: port, counters: counters, channel: channel, group: group)
    }

    func stop() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }

    /// (connections, requests) so far.
    var counts: (connections: Int, requests: Int) {
        (counters.connections.load(ordering: .relaxed), counters.requests.load(ordering: .relaxed))
    }
}

private final class Responder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let counters: LocalHTTPServer.Counters
    private var keepAlive = true
    private var redirect = false
    private let body = ByteBuffer(string: LocalHTTPServer.body)

    init(counters: LocalHTTPServer.Counters) {
        self.counters = counters
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
            redirect = head.uri.hasPrefix("/redirect")
        case .body:
            break
        case .end:
            counters.requests.add(1, ordering: .relaxed)
            var headers = HTTPHeaders()
            if redirect {
                headers.add(name: "Location", value: "/small")
                headers.add(name: "Content-Length", value: "0")
            } else {
                headers.add(name: "Content-Type", value: "application/json")
                headers.add(name: "Content-Length", value: String(body.readableBytes))
            }
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: redirect ? .found : .ok, headers: headers))),
                          promise: nil)
            if !redirect { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
            let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if !keepAlive {
                written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
        }
    }
}
