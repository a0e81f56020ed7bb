import EscrowCore
import EscrowHost
import EscrowWire
import EscrowStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The escrow host daemon (`escrow serve`): apps reach the individual's data only through it.
///
/// It listens on a Unix domain socket inside the escrow home (mode 0600), speaks the compute
/// protocol's framing without TLS (the socket's permissions and the peer credentials identify the
/// caller, recorded in every audit entry), serves many apps at once through one `EscrowHost`, and
/// refuses to start when another daemon serves the same home. `shutdown()` stops accepting, lets
/// runs in flight finish (and be audited), then closes the connections and removes the socket.
///
/// A request longer than `maximumRequestLength` is refused (`Error{MESSAGE_TOO_LARGE}`, then
/// close), unless it is a run request whose compute module makes up the difference: a module may
/// be up to `RPCLimits.maximumModuleLength` bytes on top of the request's other fields. The
/// decision is made from the length prefix and the request's first bytes (where its module field
/// begins, and how long it says it is), so a request without a module is refused before more than
/// `maximumRequestLength` of it is read, and one with a module over its maximum before the module
/// is. A connection over the maximum is closed
/// as soon as it is accepted; one that sends no request in time is closed (`ConnectionLimits`;
/// its handshake timeout is unused: there is no TLS on the socket).
public final class HostDaemon: Sendable {
    public let host: EscrowHost
    public let socketPath: String
    /// The largest request message an app may send, in bytes, not counting the compute module a
    /// run request may carry (up to `RPCLimits.maximumModuleLength` bytes more).
    public let maximumRequestLength: Int
    /// App connections open at once, and how long each may wait before its first request and
    /// between requests.
    public let limits: ConnectionLimits
    private let logger: Logger
    private let lock: DaemonLock
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let listener = Mutex<(any Channel)?>(nil)
    private let running = Mutex(0)
    private let connections: ConnectionRegistry
    /// How often the retention setting is applied while the daemon runs.
    private let retentionInterval: Duration
    private let retention = Mutex<Task<Void, Never>?>(nil)

    /// The default largest request: 1 MiB. A run request carries an app id, a purpose, an
    /// access() query and parameters, never a frame of data, so a real one is a few kilobytes;
    /// a compute module it brings is counted apart.
    public static let defaultMaximumRequestLength = 1 << 20

    /// The default socket of a home: `<home>/escrow.sock`.
    public static func defaultSocketPath(for home: EscrowHome) -> String {
        home.url.appendingPathComponent("escrow.sock").path
    }

    /// Takes the home's daemon lock.
    ///
    /// - Throws: `DaemonError.alreadyRunning` when another daemon serves the home.
    ///
    /// - Parameter retentionInterval: how often old audit entries are deleted while the daemon
    ///   runs (`escrow config set retention-days N`); also once at start.
    public init(host: EscrowHost, socketPath: String? = nil, limits: ConnectionLimits = ConnectionLimits(),
                maximumRequestLength: Int = HostDaemon.defaultMaximumRequestLength,
                retentionInterval: Duration = .seconds(3600), logger: Logger) throws {
        self.host = host
        self.retentionInterval = retentionInterval
        self.socketPath = socketPath ?? Self.defaultSocketPath(for: host.home)
        self.limits = limits
        self.maximumRequestLength = maximumRequestLength
        self.logger = logger
        connections = ConnectionRegistry(maximum: limits.maximumConnections, logger: logger)
        lock = try DaemonLock(path: host.home.url.appendingPathComponent("daemon.lock").path)
    }

    /// Binds the socket (replacing a stale socket file) with mode 0600 and starts serving.
    public func start() async throws {
        let host = self.host
        let logger = self.logger
        let daemon = self
        let connections = self.connections
        let (limits, maximumRequestLength) = (self.limits, self.maximumRequestLength)
        let bootstrap = ServerBootstrap(group: group)
            // Out of descriptors (EMFILE), accepting again at once would spin: wait a second.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler(shouldForwardIOErrorCaught: false))
                }
            }
            .childChannelInitializer { channel in
                // Over the maximum: closed at once.
                guard connections.admit(channel) else { return channel.eventLoop.makeFailedFuture(ConnectionRefused()) }
                return channel.eventLoop.makeCompletedFuture {
                    channel.closeFuture.whenComplete { _ in connections.closed(channel) }
                    let deadlines = ConnectionDeadlineHandler(limits: limits, handshake: false, logger: logger)
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(EnvelopeDecoder(maximumMessageLength: maximumRequestLength,
                                                             maximumModuleLength: RPCLimits.maximumModuleLength)))
                    try channel.pipeline.syncOperations.addHandler(deadlines)
                    try channel.pipeline.syncOperations.addHandler(
                        AppConnectionHandler(host: host, daemon: daemon, deadlines: deadlines, logger: logger))
                }
            }
        // The socket is made 0600 right after binding. (Not through umask: it is process-wide,
        // and would change the mode of files other threads create meanwhile.) In the default
        // place, the escrow home (0700) already keeps other users out in between.
        do {
            let channel = try await bootstrap.bind(unixDomainSocketPath: socketPath, cleanupExistingSocketFile: true).get()
            chmod(socketPath, 0o600)
            listener.withLock { $0 = channel }
        } catch {
            throw DaemonError.cannotListen("\(socketPath): \(error)")
        }
        logger.info("escrow daemon listening", metadata: ["socket": "\(socketPath)"])
        let interval = retentionInterval
        retention.withLock { task in
            task = Task {
                while !Task.isCancelled {
                    host.applyRetention()
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    /// Stops accepting, waits (up to `drainTimeout`) for runs in flight, closes the connections
    /// and removes the socket file.
    public func shutdown(drainTimeout: Duration = .seconds(30)) async {
        let channel = listener.withLock { channel -> (any Channel)? in
            defer { channel = nil }
            return channel
        }
        try? await channel?.close()
        retention.withLock { task in
            task?.cancel()
            task = nil
        }
        let deadline = ContinuousClock.now + drainTimeout
        while running.withLock({ $0 }) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for connection in connections.all() {
            try? await connection.close()
        }
        unlink(socketPath)
        try? await group.shutdownGracefully()
        logger.info("escrow daemon stopped")
    }

    /// App connections open now.
    public var openConnections: Int { connections.count }

    func began() { running.withLock { $0 += 1 } }
    func ended() { running.withLock { $0 -= 1 } }
}
