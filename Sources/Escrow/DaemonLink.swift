import EscrowCore
import EscrowWire
import NIOPosix
import Synchronization

/// The SDK's connection to the escrow daemon, opened again when the daemon has closed it.
///
/// The daemon closes a connection that sends no request for a while (`escrow serve
/// --first-request-timeout`, `--idle-timeout`), so an app that connects at launch and runs a
/// dataflow later must not find its connection gone: the next run opens a new one on the same
/// socket. When the daemon closed a kept connection just as a request went out on it, the
/// request is sent once more on a new one: the daemon closes only connections without a request
/// in flight, so it did not run that one.
///
/// Thread safety: all methods may be called from any task; two runs that find the connection
/// closed at once may each open one, and the last one opened is kept.
final class DaemonLink: EscrowTransport {
    let socketPath: String
    private let connection: Mutex<ComputeConnection>

    private init(socketPath: String, connection: ComputeConnection) {
        self.socketPath = socketPath
        self.connection = Mutex(connection)
    }

    /// Connects to the daemon's socket.
    ///
    /// - Throws: `RPCError.connectionFailed` when nothing listens there.
    static func connect(_ socketPath: String) async throws -> DaemonLink {
        DaemonLink(socketPath: socketPath, connection: try await open(socketPath))
    }

    /// Runs `body` with the connection, opened again first when the daemon closed it, and once
    /// more on a new connection when the kept one turns out closed under `body`'s request.
    ///
    /// - Throws: `RPCError.connectionFailed` when the daemon no longer listens; `body`'s errors.
    func withConnection<T>(_ body: (ComputeConnection) async throws -> T) async throws -> T {
        let existing = connection.withLock { $0 }
        guard existing.isActive else { return try await body(try await reopen()) }
        do {
            return try await body(existing)
        } catch let error as RPCError where !existing.isActive {
            switch error {
            case .connectionClosed, .connectionFailed: return try await body(try await reopen())
            default: throw error
            }
        }
    }

    /// Sends the run request; the daemon waits for the decision, so the call's deadline is the
    /// wait plus two minutes for the run itself.
    func run(_ request: DataflowRequest, waitForApproval: Duration) async throws(EscrowError) -> Frame {
        let message = Escrow_V1_RunRequest(request, waitForDecision: waitForApproval)
        do {
            return try await withConnection { try await $0.run(message, deadline: waitForApproval + .seconds(120)).output }
        } catch {
            throw EscrowError(daemon: error)
        }
    }

    private func reopen() async throws -> ComputeConnection {
        let fresh = try await Self.open(socketPath)
        connection.withLock { $0 = fresh }
        return fresh
    }

    func close() async {
        await connection.withLock { $0 }.close()
    }

    private static func open(_ socketPath: String) async throws -> ComputeConnection {
        try await ComputeConnection.connect(unixSocket: socketPath, group: MultiThreadedEventLoopGroup.singleton)
    }
}
