import EscrowCore
import EscrowRPC
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
public final class HostDaemon: Sendable {
    public let host: EscrowHost
    public let socketPath: String
    private let logger: Logger
    private let lock: DaemonLock
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let listener = Mutex<(any Channel)?>(nil)
    private let running = Mutex(0)
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// The default socket of a home: `<home>/escrow.sock`.
    public static func defaultSocketPath(for home: EscrowHome) -> String {
        home.url.appendingPathComponent("escrow.sock").path
    }

    /// Takes the home's daemon lock.
    ///
    /// - Throws: `DaemonError.alreadyRunning` when another daemon serves the home.
    public init(host: EscrowHost, socketPath: String? = nil, logger: Logger) throws {
        self.host = host
        self.socketPath = socketPath ?? Self.defaultSocketPath(for: host.home)
        self.logger = logger
        lock = try DaemonLock(path: host.home.url.appendingPathComponent("daemon.lock").path)
    }

    /// Binds the socket (replacing a stale socket file) with mode 0600 and starts serving.
    public func start() async throws {
        let host = self.host
        let logger = self.logger
        let daemon = self
        let bootstrap = ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    daemon.opened(channel)
                    channel.closeFuture.whenComplete { _ in daemon.closed(channel) }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeDecoder()))
                    try channel.pipeline.syncOperations.addHandler(AppConnectionHandler(host: host, daemon: daemon, logger: logger))
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
    }

    /// Stops accepting, waits (up to `drainTimeout`) for runs in flight, closes the connections
    /// and removes the socket file.
    public func shutdown(drainTimeout: Duration = .seconds(30)) async {
        let channel = listener.withLock { channel -> (any Channel)? in
            defer { channel = nil }
            return channel
        }
        try? await channel?.close()
        let deadline = ContinuousClock.now + drainTimeout
        while running.withLock({ $0 }) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for connection in connections.withLock({ Array($0.values) }) {
            try? await connection.close()
        }
        unlink(socketPath)
        try? await group.shutdownGracefully()
        logger.info("escrow daemon stopped")
    }

    func began() { running.withLock { $0 += 1 } }
    func ended() { running.withLock { $0 -= 1 } }
    private func opened(_ channel: any Channel) { connections.withLock { $0[ObjectIdentifier(channel)] = channel } }
    private func closed(_ channel: any Channel) { _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) } }
}
