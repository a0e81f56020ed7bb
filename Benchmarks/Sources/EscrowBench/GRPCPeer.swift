import EscrowComputeRuntime
import EscrowCore
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// An in-process gRPC Swift 2 server running `GRPCComputeService` on 127.0.0.1 and one client
/// connected to it, both over HTTP/2 with mutual TLS from the same development certificates as our
/// compute server (certs/make-dev-certs.sh): the server presents server.pem and requires a client
/// certificate chaining to ca.pem; the client presents client.pem and verifies the server's chain
/// and the name `compute-1` against ca.pem.
///
/// Like our `ComputeServer`, the server runs on an event-loop group of its own (one thread per
/// core); the client, like our `ComputeConnection` in the benchmark, uses NIO's singleton group.
/// The largest message is raised from gRPC's 4 MiB to 64 MiB on both sides; `Tuning` says what
/// else differs from gRPC's defaults.
final class GRPCPeer: Sendable {
    let client: GRPCComputeClient
    private let server: GRPCServer<HTTP2ServerTransport.Posix>
    private let serverTask: Task<Void, any Error>
    private let clientTask: Task<Void, any Error>
    /// The TLS versions the server negotiated, one per accepted connection.
    private let negotiated: TLSVersionLog

    /// The largest gRPC message either way: gRPC's default is 4 MiB, too small for the 16 MB call;
    /// 64 MiB is also our protocol's default maximum frame.
    static let maximumMessageBytes = 64 * 1024 * 1024

    /// The server's threads, one per core, kept for the whole run (gRPC's connection timers may
    /// still fire on them just after the server has stopped).
    private static let serverGroup = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

    /// How the transports are set up beyond gRPC's defaults (the message size limit is always
    /// raised).
    struct Tuning: Sendable, CustomStringConvertible {
        /// Whether to keep gRPC's flush coalescing (up to 100 µs of delay before each flush, on
        /// both sides).
        var flushCoalescing: Bool
        /// The HTTP/2 flow-control window of the server (gRPC's default is 64 KiB − 1; the client's
        /// is 8 MiB).
        var serverWindow: Int?
        /// The largest HTTP/2 frame both sides accept (gRPC's default is 16 KiB).
        var maxFrameSize: Int?

        /// gRPC's defaults.
        static let defaults = Tuning(flushCoalescing: true, serverWindow: nil, maxFrameSize: nil)
        /// Tuned for this workload: sequential calls have nothing to coalesce; a 16 MB request
        /// needs a large window (8 MiB, as the client's), and moves in fewer frames of up to 1 MiB.
        static let tuned = Tuning(flushCoalescing: false, serverWindow: 8 * 1024 * 1024, maxFrameSize: 1 << 20)

        var description: String {
            "flush coalescing \(flushCoalescing ? "on" : "off"), server window \(serverWindow.map { "\($0) bytes" } ?? "default"), "
                + "HTTP/2 max frame \(maxFrameSize.map { "\($0) bytes" } ?? "default")"
        }
    }

    /// Starts the server and the client; the client connects on its first call.
    init(certificates folder: URL, catalog: FunctionCatalog, tuning: Tuning) async throws {
        func file(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let ca: TLSConfig.TrustRootsSource = .certificates([.file(path: file("ca.pem"), format: .pem)])
        let negotiated = TLSVersionLog()
        self.negotiated = negotiated

        let serverTransport = HTTP2ServerTransport.Posix(
            address: .ipv4(host: "127.0.0.1", port: 0),
            transportSecurity: .mTLS(
                certificateChain: [.file(path: file("server.pem"), format: .pem)],
                privateKey: .file(path: file("server-key.pem"), format: .pem)
            ) { tls in
                tls.trustRoots = ca
                tls.clientCertificateVerification = .noHostnameVerification
            },
            config: .defaults { config in
                config.rpc.maxRequestPayloadSize = Self.maximumMessageBytes
                if !tuning.flushCoalescing { config.connection.flushCoalescing = nil }
                if let window = tuning.serverWindow { config.http2.targetWindowSize = window }
                if let size = tuning.maxFrameSize { config.http2.maxFrameSize = size }
                config.channelDebuggingCallbacks.onAcceptTCPConnection = { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let ssl = try channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
                        try channel.pipeline.syncOperations.addHandler(TLSVersionProbe(negotiated), position: .after(ssl))
                    }
                }
            },
            eventLoopGroup: Self.serverGroup
        )
        let server = GRPCServer(transport: serverTransport, services: [GRPCComputeService(catalog: catalog)])
        self.server = server
        serverTask = Task { try await server.serve() }

        do {
            guard let port = try await server.listeningAddress?.ipv4?.port else {
                throw BenchError("the gRPC server did not report an IPv4 listening address")
            }
            let clientTransport = try HTTP2ClientTransport.Posix(
                target: .ipv4(address: "127.0.0.1", port: port),
                transportSecurity: .mTLS(
                    certificateChain: [.file(path: file("client.pem"), format: .pem)],
                    privateKey: .file(path: file("client-key.pem"), format: .pem)
                ) { tls in
                    tls.trustRoots = ca
                    tls.serverCertificateVerification = .fullVerification
                },
                config: .defaults { config in
                    // The name checked against the server's certificate (and sent as SNI), like our
                    // client's --server-name.
                    config.http2.authority = "compute-1"
                    if !tuning.flushCoalescing { config.connection.flushCoalescing = nil }
                    if let size = tuning.maxFrameSize { config.http2.maxFrameSize = size }
                },
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton
            )
            let grpcClient = GRPCClient(transport: clientTransport)
            clientTask = Task { try await grpcClient.runConnections() }
            client = GRPCComputeClient(client: grpcClient, maximumMessageBytes: Self.maximumMessageBytes)
        } catch {
            server.beginGracefulShutdown()
            _ = await serverTask.result
            throw error
        }
    }

    /// The TLS version of every connection the server accepted so far (nil while a handshake has
    /// not completed).
    var negotiatedVersions: [TLSVersion?] { negotiated.versions.withLock { $0 } }

    /// Stops the client, then the server.
    func close() async {
        client.client.beginGracefulShutdown()
        _ = await clientTask.result
        server.beginGracefulShutdown()
        _ = await serverTask.result
    }
}

/// The TLS versions of the connections a server accepted.
final class TLSVersionLog: Sendable {
    let versions = Mutex<[TLSVersion?]>([])
}

/// Records the TLS version of a connection in a log once its handshake completes.
private final class TLSVersionProbe: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    private let log: TLSVersionLog

    init(_ log: TLSVersionLog) {
        self.log = log
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls {
            let log = self.log
            context.channel.nioSSL_tlsVersion().whenComplete { result in
                log.versions.withLock { $0.append(try? result.get()) }
            }
        }
        context.fireUserInboundEventTriggered(event)
    }
}
