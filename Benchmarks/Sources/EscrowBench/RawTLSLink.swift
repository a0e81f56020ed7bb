import EscrowWire
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// A bare mutual-TLS 1.3 byte pipe on 127.0.0.1 with the compute server's certificates and
/// configurations (`TLSFiles.serverContext()` / `clientContext()`): the floor under a compute
/// RPC moving the same bytes. No framing, no protobuf, no function.
///
/// A round trip: the client sends a 16-byte header (bytes to send, bytes to answer) and that
/// many payload bytes; once the server has counted them all it answers with the asked number of
/// bytes, and the round trip ends when the client has counted those.
final class RawTLSLink: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let channel: any Channel
    private let handler: NIOLoopBound<RawTLSClientHandler>

    private init(group: MultiThreadedEventLoopGroup, listener: any Channel, channel: any Channel,
                 handler: NIOLoopBound<RawTLSClientHandler>) {
        self.group = group
        self.listener = listener
        self.channel = channel
        self.handler = handler
    }

    /// Starts the sink server (its own event loops, as the compute server has) and connects to
    /// it from the shared client event loops, completing the handshake.
    static func open(certificates folder: URL) async throws -> RawTLSLink {
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let serverTLS = try TLSFiles(certificate: path("server.pem"), privateKey: path("server-key.pem"),
                                     certificateAuthority: path("ca.pem")).serverContext()
        let clientTLS = try TLSFiles(certificate: path("client.pem"), privateKey: path("client-key.pem"),
                                     certificateAuthority: path("ca.pem")).clientContext()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: serverTLS))
                    try channel.pipeline.syncOperations.addHandler(RawTLSSinkHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = listener.localAddress?.port else { throw BenchError("the raw TLS sink has no port") }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: clientTLS, serverHostname: "compute-1"))
                    try channel.pipeline.syncOperations.addHandler(RawTLSClientHandler())
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let handler = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: RawTLSClientHandler.self), eventLoop: channel.eventLoop)
        }.get()
        let link = RawTLSLink(group: group, listener: listener, channel: channel, handler: handler)
        _ = try await link.roundTrip(sending: 1, receiving: 1)
        return link
    }

    /// Sends `sending` bytes (prepared before the clock starts) and waits for `receiving` bytes back.
    ///
    /// - Returns: the time from handing the bytes to the channel to the last byte received.
    func roundTrip(sending: Int, receiving: Int) async throws -> Duration {
        var buffer = channel.allocator.buffer(capacity: 16 + sending)
        buffer.writeInteger(UInt64(sending))
        buffer.writeInteger(UInt64(receiving))
        buffer.writeRepeatingByte(0x5A, count: sending)
        let message = buffer
        let channel = self.channel
        let handler = self.handler
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let clock = ContinuousClock()
        let started = clock.now
        channel.eventLoop.execute {
            handler.value.expect(receiving, promise: promise)
            channel.writeAndFlush(message).cascadeFailure(to: promise)
        }
        try await promise.futureResult.get()
        return clock.now - started
    }

    func close() async {
        try? await channel.close()
        try? await listener.close()
        try? await group.shutdownGracefully()
    }
}

/// The sink's side of a connection: reads a header, counts the payload, answers.
private final class RawTLSSinkHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var header = ByteBuffer()
    /// Payload bytes still to come, and the answer's size, once the header is in.
    private var pending: (remaining: Int, answer: Int)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var input = unwrapInboundIn(data)
        while true {
            if pending == nil {
                guard input.readableBytes > 0, var part = input.readSlice(length: min(16 - header.readableBytes, input.readableBytes)) else {
                    return
                }
                header.writeBuffer(&part)
                guard header.readableBytes == 16,
                      let sending = header.readInteger(as: UInt64.self), let answer = header.readInteger(as: UInt64.self) else { continue }
                header.clear()
                pending = (Int(sending), Int(answer))
            }
            guard var current = pending else { continue }
            let taken = min(current.remaining, input.readableBytes)
            input.moveReaderIndex(forwardBy: taken)
            current.remaining -= taken
            pending = current
            guard current.remaining == 0 else { return }
            pending = nil
            var reply = context.channel.allocator.buffer(capacity: current.answer)
            reply.writeRepeatingByte(0xA5, count: current.answer)
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
        }
    }
}

/// The client's side: counts answered bytes and completes the round trip's promise.
private final class RawTLSClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private var remaining = 0
    private var promise: EventLoopPromise<Void>?

    func expect(_ count: Int, promise: EventLoopPromise<Void>) {
        remaining = count
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        remaining -= unwrapInboundIn(data).readableBytes
        if remaining <= 0, let promise {
            self.promise = nil
            if remaining < 0 {
                promise.fail(BenchError("the raw TLS sink answered too many bytes"))
            } else {
                promise.succeed()
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(BenchError("the raw TLS connection closed"))
        promise = nil
    }
}
