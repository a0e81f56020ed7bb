import EscrowSockets
import EscrowWire
import EscrowCore
import EscrowNetwork
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// How a compute server listens and what it accepts.
public struct ComputeServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The server's certificate and key, and the escrow CA client certificates must chain to.
    public var tls: TLSFiles
    /// The id the server reports in its catalog.
    public var serverID: String
    public var maximumMessageLength: Int
    /// Compute calls running at once, across all connections; more are answered OVERLOADED.
    public var maximumConcurrency: Int
    /// How long a graceful shutdown waits for running calls.
    public var drainTimeout: Duration
    /// Connections open at once, and how long each may take to handshake, to send its first
    /// request, and to stay idle.
    public var connectionLimits: ConnectionLimits
    /// Which compute modules the server runs, and under which limits.
    public var modules: ServerModulePolicy
    /// Where the health and metrics listener listens (plain HTTP: `/healthz`, `/readyz`,
    /// `/metrics`); nil: none. Port 0 picks a free port.
    public var health: (host: String, port: Int)?
    /// How long a graceful shutdown keeps taking calls after readiness turned off, so an
    /// orchestrator sees it and sends new calls elsewhere first.
    public var readinessDrainDelay: Duration

    public init(host: String, port: Int, tls: TLSFiles, serverID: String = "escrow-compute",
                maximumMessageLength: Int = RPCLimits.defaultMaximumMessageLength,
                maximumConcurrency: Int = 2 * System.coreCount, drainTimeout: Duration = .seconds(30),
                connectionLimits: ConnectionLimits = ConnectionLimits(), modules: ServerModulePolicy = ServerModulePolicy(),
                health: (host: String, port: Int)? = nil, readinessDrainDelay: Duration = .zero) {
        self.host = host
        self.port = port
        self.tls = tls
        self.serverID = serverID
        self.maximumMessageLength = maximumMessageLength
        self.maximumConcurrency = maximumConcurrency
        self.drainTimeout = drainTimeout
        self.connectionLimits = connectionLimits
        self.modules = modules
        self.health = health
        self.readinessDrainDelay = readinessDrainDelay
    }
}

/// The escrow compute server: runs registered compute functions for escrow hosts over mutual TLS.
///
/// It keeps nothing of a call's input after answering it, never logs payloads, answers every
/// failure with a typed `Error` envelope, and keeps serving other connections whatever one peer
/// sends. A connection over the maximum is closed as soon as it is accepted, and one that does
/// not finish its handshake, send its first request or, later, any request in time is closed
/// (`ConnectionLimits`). `shutdown()` stops accepting, lets running calls finish (up to
/// `drainTimeout`), then closes the connections.
///
/// Thread safety: start and shut down from one task; the server itself serves concurrently.
public final class ComputeServer: Sendable {
    public let configuration: ComputeServerConfiguration
    private let catalog: FunctionCatalog
    private let network: any NetworkClient
    private let witness: AuditWitnessStore?
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    private let state: ServerState
    private let modules: ServerModules
    /// What the server counts, served at `/metrics` when the health listener is on.
    public let metrics = ServerMetrics()
    private let listener = Mutex<(any Channel)?>(nil)
    private let healthListener = Mutex<HealthListener?>(nil)

    /// - Parameters:
    ///   - network: the client the functions reach the network through.
    ///   - witness: the store of a server that also witnesses escrow hosts' audit heads; nil
    ///     answers witness requests `NOT_A_WITNESS`.
    public init(configuration: ComputeServerConfiguration, catalog: FunctionCatalog,
                network: any NetworkClient = HTTPNetworkClient(), witness: AuditWitnessStore? = nil, logger: Logger) {
        self.configuration = configuration
        self.catalog = catalog
        self.network = network
        self.witness = witness
        self.logger = logger
        modules = ServerModules(policy: configuration.modules)
        group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        state = ServerState(maximumConcurrency: configuration.maximumConcurrency,
                            connections: ConnectionRegistry(maximum: configuration.connectionLimits.maximumConnections, logger: logger))
    }

    /// Binds and starts accepting connections.
    ///
    /// - Returns: the port the server listens on (the one chosen when 0 was asked).
    /// - Throws: `RPCError.connectionFailed` for unreadable TLS files or an address in use.
    @discardableResult
    public func start() async throws -> Int {
        let tls = try configuration.tls.serverContext()
        let catalog = self.catalog
        let network = self.network
        let witness = self.witness
        let logger = self.logger
        let state = self.state
        let modules = self.modules
        let metrics = self.metrics
        let maximumMessageLength = configuration.maximumMessageLength
        let limits = configuration.connectionLimits
        let catalogEnvelope = ServerConnectionHandler.catalogMessage(catalog, serverID: configuration.serverID)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Out of descriptors (EMFILE), accepting again at once would spin: wait a second.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler(shouldForwardIOErrorCaught: false))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                // Over the maximum: closed at once, before any handler or TLS state exists.
                guard state.connections.admit(channel) else {
                    return channel.eventLoop.makeFailedFuture(ConnectionRefused())
                }
                return channel.eventLoop.makeCompletedFuture {
                    channel.closeFuture.whenComplete { _ in state.connections.closed(channel) }
                    let deadlines = ConnectionDeadlineHandler(limits: limits, handshake: true, logger: logger)
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeDecoder(maximumMessageLength: maximumMessageLength)))
                    try channel.pipeline.syncOperations.addHandler(deadlines)
                    try channel.pipeline.syncOperations.addHandler(
                        ServerConnectionHandler(catalog: catalog, catalogMessage: catalogEnvelope, state: state,
                                                deadlines: deadlines, network: network, modules: modules, metrics: metrics,
                                                witness: witness, logger: logger))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
            listener.withLock { $0 = channel }
            guard let port = channel.localAddress?.port else { throw RPCError.connectionFailed("no local address") }
            logger.info("compute server listening", metadata: ["port": "\(port)", "functions": "\(catalog.descriptors.count)"])
            if let health = configuration.health {
                do {
                    let started = try await HealthListener.start(host: health.host, port: health.port, state: state, metrics: metrics,
                                                                 modules: modules, group: group)
                    healthListener.withLock { $0 = started }
                    logger.info("health listener", metadata: ["port": "\(started.port)"])
                } catch {
                    try? await channel.close()
                    throw RPCError.connectionFailed("cannot listen for health checks on \(health.host):\(health.port): \(SocketFailure.reason(error))")
                }
            }
            return port
        } catch let error as RPCError {
            throw error
        } catch {
            throw RPCError.connectionFailed("cannot listen on \(configuration.host):\(configuration.port): \(SocketFailure.reason(error))")
        }
    }

    /// The health listener's port, when it listens.
    public var healthPort: Int? { healthListener.withLock { $0?.port } }

    /// Stops accepting, waits for running calls (new calls are answered SHUTTING_DOWN), closes
    /// every connection and stops the threads.
    public func shutdown() async {
        // Readiness first: an orchestrator stops sending calls here while the server still takes
        // the ones already on their way.
        state.stopBeingReady()
        if configuration.readinessDrainDelay > .zero {
            try? await Task.sleep(for: configuration.readinessDrainDelay)
        }
        state.beginDraining()
        let channel = listener.withLock { channel -> (any Channel)? in
            defer { channel = nil }
            return channel
        }
        try? await channel?.close()
        let deadline = ContinuousClock.now + configuration.drainTimeout
        while state.running > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for connection in state.connections.all() {
            try? await connection.close()
        }
        await healthListener.withLock { $0 }?.close()
        try? await group.shutdownGracefully()
        logger.info("compute server stopped")
    }
}

/// What all connections of a server share: the running-call count and the open connections.
final class ServerState: Sendable {
    private struct Counts {
        var running = 0
        var draining = false
        var ready = true
    }

    let maximumConcurrency: Int
    let connections: ConnectionRegistry
    private let counts = Mutex(Counts())

    init(maximumConcurrency: Int, connections: ConnectionRegistry) {
        self.maximumConcurrency = max(1, maximumConcurrency)
        self.connections = connections
    }

    /// Why the server is not ready for calls (`/readyz`), or nil when it is.
    var readiness: String? {
        counts.withLock { counts in
            if counts.draining || !counts.ready { return "draining: shutting down, send calls elsewhere" }
            if counts.running >= maximumConcurrency { return "busy: \(counts.running) calls running, its limit" }
            return nil
        }
    }

    /// Turns readiness off (the first step of a graceful shutdown); calls are still taken.
    func stopBeingReady() {
        counts.withLock { $0.ready = false }
    }

    /// Why a new call may not start, or nil when it may (and is then counted as running).
    func admit() -> Escrow_V1_Error.Code? {
        counts.withLock { counts in
            if counts.draining { return .shuttingDown }
            guard counts.running < maximumConcurrency else { return .overloaded }
            counts.running += 1
            return nil
        }
    }

    func finished() { counts.withLock { $0.running -= 1 } }
    var running: Int { counts.withLock { $0.running } }
    func beginDraining() { counts.withLock { $0.draining = true } }
}
