import EscrowCore
import EscrowEgress
import EscrowModules
import EscrowWire
import Logging
import NIOPosix
import Synchronization

/// What a compute step produced, wherever it ran.
struct ComputeOutcome: Sendable {
    let output: Frame
    var bytesSent = 0
    var bytesReceived = 0
    var serverLatencyMs: Double?
    /// What the server reported spending in the function.
    var serverComputeMs: Double?
}

/// Sends compute calls to registered compute servers, over a pool of mutual-TLS connections (one
/// per server, reused across runs, re-opened when closed). Before any data is sent, the server's
/// catalog must offer the function with exactly the approved code digest.
///
/// Thread safety: shared by all runs of a host.
final class RemoteCompute: Sendable {
    private let registry: ServerRegistry
    private let logger: Logger
    private let deadline: Duration
    private let pool = Mutex(Pool())

    private struct Pooled: Sendable {
        let connection: ComputeConnection
        let catalog: RemoteCatalog
    }

    /// The open connection per server, and the one being opened: calls that find none open wait
    /// for the one being opened instead of each opening (and replacing) their own.
    private struct Pool: Sendable {
        var open: [String: Pooled] = [:]
        var opening: [String: Task<Pooled, any Error>] = [:]
    }

    private enum Lookup {
        case ready(Pooled)
        case opening(Task<Pooled, any Error>)
    }

    init(registry: ServerRegistry, deadline: Duration, logger: Logger) {
        self.registry = registry
        self.deadline = deadline
        self.logger = logger
    }

    /// Runs `function` on server `serverID`.
    ///
    /// - Throws: `ServerError.unknownServer`; `RemoteComputeError` when the server's catalog does
    ///   not offer the approved code (nothing was sent); `RPCError` for connection, TLS, deadline
    ///   and server-side failures.
    ///
    /// The server applies `egress`'s blocked domains and reports the function's requests back
    /// into its recorder, also when the call fails.
    ///
    /// A compute module needs no catalog entry: the call names its digest, and carries its bytes
    /// when the server answers that it does not have them (MODULE_NEEDED); an output the server
    /// says came from another module is withheld.
    func compute(on serverID: String, function: FunctionDescriptor, module: ComputeModule? = nil, input: Frame,
                 parameters: ComputeParameters, egress: Egress?) async throws -> ComputeOutcome {
        let pooled = try await connection(to: serverID)
        if module == nil { try pooled.catalog.check(function) }
        let blockedDomains = try egress?.blockedDomains() ?? []
        do {
            let recorder = egress?.recorder
            var call = module.map { ModuleCall(sha256: $0.sha256) }
            var result: RemoteComputeResult
            while true {
                do {
                    result = try await pooled.connection.compute(
                        function, input: input, parameters: parameters, blockedDomains: blockedDomains, module: call,
                        deadline: deadline) { reported in recorder?.add(reported: reported) }
                    break
                } catch RPCError.remote(code: .moduleNeeded, _) where call?.bytes == nil {
                    call = module.map { ModuleCall(sha256: $0.sha256, bytes: $0.bytes) }
                }
            }
            if let module, result.moduleSHA256 != module.sha256 {
                throw RemoteComputeError.moduleMismatch(server: serverID, module: module.manifest.id, approved: module.sha256,
                                                        ran: result.moduleSHA256)
            }
            return ComputeOutcome(output: result.output, bytesSent: result.bytesSent, bytesReceived: result.bytesReceived,
                                  serverLatencyMs: result.latency.milliseconds,
                                  serverComputeMs: result.computeTime.milliseconds)
        } catch let error as RPCError {
            if case .remote = error {} else { drop(serverID, pooled.connection) }
            throw error
        }
    }

    /// An open connection to the server, with its catalog: the pooled one while it is open, else
    /// one opened now — once, however many calls ask for it at the same time.
    private func connection(to serverID: String) async throws -> Pooled {
        let lookup = pool.withLock { pool -> Lookup in
            if let pooled = pool.open[serverID], pooled.connection.isActive { return .ready(pooled) }
            if let opening = pool.opening[serverID] { return .opening(opening) }
            let opening = Task { try await self.open(serverID) }
            pool.opening[serverID] = opening
            return .opening(opening)
        }
        switch lookup {
        case .ready(let pooled): return pooled
        case .opening(let task): return try await task.value
        }
    }

    /// Opens a connection to the server (its addresses in order) and pools it in place of the
    /// closed one, which it then closes.
    private func open(_ serverID: String) async throws -> Pooled {
        do {
            let pooled = try await connect(serverID)
            let previous = pool.withLock { pool -> Pooled? in
                defer {
                    pool.open[serverID] = pooled
                    pool.opening[serverID] = nil
                }
                return pool.open[serverID]
            }
            if let previous { await previous.connection.close() }
            return pooled
        } catch {
            pool.withLock { $0.opening[serverID] = nil }
            throw error
        }
    }

    private func connect(_ serverID: String) async throws -> Pooled {
        let server = try registry.server(serverID)
        let tls = TLSFiles(certificate: registry.clientCertificate, privateKey: registry.clientKey,
                           certificateAuthority: server.caFile)
        var lastError: any Error = ServerError.unknownServer(serverID)
        for address in server.addresses {
            do {
                let (host, port) = try ServerRegistry.split(address)
                let connection = try await ComputeConnection.connect(host: host, port: port, serverName: server.serverName,
                                                                     tls: tls, group: MultiThreadedEventLoopGroup.singleton)
                let catalog = RemoteCatalog(server: serverID, entries: try await connection.hello(clientName: "escrow-host").functions)
                for (entry, problem) in catalog.unreadable.sorted(by: { $0.key < $1.key }) {
                    logger.warning("a compute server's catalog entry cannot be read; its function cannot run there",
                                   metadata: ["server": "\(serverID)", "entry": "\(entry)", "problem": "\(problem)"])
                }
                logger.info("connected to a compute server", metadata: ["server": "\(serverID)", "address": "\(address)"])
                return Pooled(connection: connection, catalog: catalog)
            } catch {
                logger.info("compute server address failed", metadata: ["server": "\(serverID)", "address": "\(address)", "error": "\(error)"])
                lastError = error
            }
        }
        throw lastError
    }

    private func drop(_ serverID: String, _ connection: ComputeConnection) {
        pool.withLock { pool in
            if pool.open[serverID]?.connection === connection { pool.open[serverID] = nil }
        }
    }

    /// Closes every pooled connection.
    func close() async {
        let pooled = pool.withLock { pool -> [Pooled] in
            defer { pool.open = [:] }
            return Array(pool.open.values)
        }
        for entry in pooled { await entry.connection.close() }
    }
}

/// The server cannot be given the data.
public enum RemoteComputeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server's catalog offers other code under the function's id than the individual approved.
    case digestMismatch(server: String, function: String, approved: String, offered: String)
    /// The server's catalog does not offer the function.
    case functionNotOffered(server: String, function: String)
    /// The server's catalog entry for the function cannot be read (`problem` says why).
    case unreadableCatalogEntry(server: String, function: String, problem: FunctionInfoDecodingError)
    /// The server says it ran another module than the one approved (or none): its output is withheld.
    case moduleMismatch(server: String, module: String, approved: String, ran: String)

    public var description: String {
        switch self {
        case .digestMismatch(let server, let function, let approved, let offered):
            "refused to send data to compute server \(server): it runs \(function) with code digest \(offered.prefix(16))…, not the approved \(approved.prefix(16))…"
        case .functionNotOffered(let server, let function):
            "compute server \(server) does not offer \(function); no data was sent"
        case .unreadableCatalogEntry(let server, let function, let problem):
            "compute server \(server)'s catalog entry for \(function) cannot be read (\(problem)); no data was sent: the server's operator has to fix its catalog"
        case .moduleMismatch(let server, let module, let approved, let ran):
            "compute server \(server) answered a call of module \(module) (\(approved.prefix(16))…) as if it ran "
                + (ran.isEmpty ? "no module" : "module \(DisplayText.escaped(String(ran.prefix(16))))…")
                + "; its output was withheld: the server is not running what you approved"
        }
    }
}

extension Duration {
    /// The duration in milliseconds, as a double.
    fileprivate var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
