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
/// per address, reused across runs, re-opened when closed). Before any data is sent, the server's
/// catalog must offer the function with exactly the approved code digest.
///
/// A server registered with several addresses is failed over: each host starts at its own place
/// in the list (so hosts spread over the addresses), an address that failed is skipped for a
/// back-off period (`ServerAddressState.backOff`), and a call that was not delivered — no
/// connection, the connection broke before the call was written, or the server declined it
/// (shutting down, at its limit, other code under the function's id) — goes to the next address.
/// A call that was delivered is not sent again when its function may contact a service (it may
/// have run, and the service seen it); one that can contact nothing is, when the connection broke
/// under it (`mayResend`): no one but the compute servers could tell. Every address a call tried
/// is handed to its `ServerAttemptLog`, for the audit entry.
///
/// Thread safety: shared by all runs of a host.
final class RemoteCompute: Sendable {
    private let registry: ServerRegistry
    private let logger: Logger
    private let deadline: Duration
    private let pool = Mutex(Pool())
    /// Where in a server's address list this host starts (the same for every server and run of
    /// this host, another for another host).
    private let spread = Atomic<Int>(Int.random(in: 0..<1 << 30))

    private struct Key: Hashable, Sendable {
        let server: String
        let address: String
    }

    private struct Pooled: Sendable {
        let connection: ComputeConnection
        let catalog: RemoteCatalog
    }

    /// A server's registration and what this host knows of its addresses.
    private struct Known: Sendable {
        var record: ServerRecord
        var states: [String: ServerAddressState]
    }

    /// The open connection per address, the one being opened (calls that find none open wait for
    /// it instead of each opening their own), and the servers as last read from the registry.
    private struct Pool: Sendable {
        var open: [Key: Pooled] = [:]
        var opening: [Key: Task<Pooled, any Error>] = [:]
        var known: [String: Known] = [:]
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

    /// Makes this host start at the `index`th address of every server (modulo its count), in
    /// place of its random place: for tests that need to know which address comes first.
    func startAddresses(at index: Int) {
        spread.store(index, ordering: .relaxed)
    }

    /// Runs `function` on server `serverID`, failing over between its addresses.
    ///
    /// - Throws: `ServerError.unknownServer`; `RemoteComputeError` when no address's catalog
    ///   offers the approved code (nothing was sent); `RPCError` for connection, TLS, deadline and
    ///   server-side failures — the last address's, when none took the call.
    ///
    /// The server applies `egress`'s blocked domains and reports the function's requests back
    /// into its recorder, also when the call fails.
    ///
    /// A compute module needs no catalog entry: the call names its digest, and carries its bytes
    /// when the server answers that it does not have them (MODULE_NEEDED); an output the server
    /// says came from another module is withheld.
    func compute(on serverID: String, function: FunctionDescriptor, module: ComputeModule? = nil, input: Frame,
                 parameters: ComputeParameters, egress: Egress?, attempts: ServerAttemptLog = ServerAttemptLog(),
                 mayResend: Bool = false) async throws -> ComputeOutcome {
        var tried: Set<String> = []
        // Addresses given a second chance over a new connection: behind a balancer, one address
        // stands for many replicas, and a connection that broke before the call was written (its
        // replica died) or whose replica is shutting down says nothing of the others.
        var reconnected: Set<String> = []
        var lastError: (any Error)?
        // Read for every call: a server the individual removed gets no more data, and one
        // registered again with other addresses is reached there.
        let record = try registry.server(serverID)
        while true {
            guard let address = try choose(record, excluding: tried) else {
                throw lastError ?? ServerError.noAddress
            }
            tried.insert(address)
            let key = Key(server: serverID, address: address)
            let pooled: Pooled
            do {
                pooled = try await connection(to: key)
            } catch {
                attempts.add(ServerAttempt(address: address, outcome: .unreachable, error: "\(error)"))
                failed(key, because: error)
                lastError = error
                continue
            }
            let sent = SentFlag()
            do {
                let outcome = try await call(pooled, on: serverID, function: function, module: module, input: input,
                                             parameters: parameters, egress: egress) { sent.set() }
                attempts.add(ServerAttempt(address: address, outcome: .answered))
                return outcome
            } catch {
                let disposition = Disposition(of: error, sent: sent.isSet, mayResend: mayResend)
                attempts.add(ServerAttempt(address: address, outcome: disposition.outcome,
                                           error: disposition.outcome == .answered ? nil : "\(error)"))
                if disposition.dropsConnection { drop(key, pooled.connection) }
                if disposition.marksAddress { failed(key, because: error) }
                guard disposition.retries else { throw error }
                if disposition.dropsConnection, reconnected.insert(address).inserted { tried.remove(address) }
                logger.info("compute call not taken at this address; trying another, if the server has one",
                            metadata: ["server": "\(serverID)", "address": "\(address)", "error": "\(error)"])
                lastError = error
            }
        }
    }

    /// One call on one connection: the catalog check, then the call (again with the module's
    /// bytes when the server asks for them).
    private func call(_ pooled: Pooled, on serverID: String, function: FunctionDescriptor, module: ComputeModule?, input: Frame,
                      parameters: ComputeParameters, egress: Egress?, sent: @escaping @Sendable () -> Void) async throws -> ComputeOutcome {
        if module == nil { try pooled.catalog.check(function) }
        let blockedDomains = try egress?.blockedDomains() ?? []
        let recorder = egress?.recorder
        var call = module.map { ModuleCall(sha256: $0.sha256) }
        var result: RemoteComputeResult
        while true {
            do {
                result = try await pooled.connection.compute(
                    function, input: input, parameters: parameters, blockedDomains: blockedDomains, module: call,
                    deadline: deadline, sent: sent) { reported in recorder?.add(reported: reported) }
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
                              serverLatencyMs: result.latency.milliseconds, serverComputeMs: result.computeTime.milliseconds)
    }

    /// What a failed call means for the run and for the address.
    private struct Disposition {
        var outcome: ServerAttempt.Outcome
        /// The address is failing: skip it for a while.
        var marksAddress = false
        /// The connection is no use any more.
        var dropsConnection = false
        /// The call certainly did not run: send it to the next address.
        var retries = false

        init(of error: any Error, sent: Bool, mayResend: Bool) {
            switch error {
            case RPCError.remote(code: .shuttingDown, _):
                (outcome, marksAddress, dropsConnection, retries) = (.declined, true, true, true)
            case RPCError.remote(code: .overloaded, _):
                (outcome, retries) = (.declined, true)
            case RPCError.remote, RPCError.decision, RemoteComputeError.moduleMismatch:
                outcome = .answered
            case is RemoteComputeError, RPCError.catalogMismatch:
                // Another replica may run the approved code (one not yet updated, say).
                (outcome, retries) = (.declined, true)
            case RPCError.messageTooLarge, RPCError.invalidMessage:
                // About the message, not the address: no other address would take it either.
                (outcome, dropsConnection) = (sent ? .unanswered : .notSent, sent)
            case RPCError.connectionClosed, RPCError.connectionFailed:
                (outcome, marksAddress, dropsConnection, retries) = (sent ? .unanswered : .notSent, true, true, !sent || mayResend)
            case RPCError.deadlineExceeded:
                // A server too slow to answer is not sent the call again, whatever the function.
                (outcome, marksAddress, dropsConnection, retries) = (sent ? .unanswered : .notSent, true, true, !sent)
            default:
                // Cancelled, or the escrow's own failure (its filters unreadable, say).
                outcome = sent ? .unanswered : .notSent
            }
        }
    }

    /// The address the next attempt of a call goes to: this host's first working address not yet
    /// tried, else the one skipped the shortest (every address is tried before a call fails).
    private func choose(_ record: ServerRecord, excluding tried: Set<String>) throws -> String? {
        let states = try known(record).states
        let addresses = record.addresses
        let now = registry.state.clock.now().seconds
        let count = max(addresses.count, 1)
        let start = (spread.load(ordering: .relaxed) % count + count) % count
        var skipped: [(address: String, until: Double)] = []
        for offset in addresses.indices {
            let address = addresses[(start + offset) % addresses.count]
            guard !tried.contains(address) else { continue }
            if let state = states[address], state.isBackingOff(at: now), let until = state.retryAt {
                skipped.append((address, until))
            } else {
                return address
            }
        }
        return skipped.min { $0.until < $1.until }?.address
    }

    /// The server as this host knows it: its addresses' states read from the registry on first
    /// use, then kept up to date by this host's own calls.
    private func known(_ record: ServerRecord) throws -> Known {
        if let known = pool.withLock({ $0.known[record.id] }), known.record == record { return known }
        let known = Known(record: record, states: try registry.recordedStates(of: record.id))
        pool.withLock { $0.known[record.id] = known }
        return known
    }

    /// An open connection to the address, with its catalog: the pooled one while it is open, else
    /// one opened now — once, however many calls ask for it at the same time.
    private func connection(to key: Key) async throws -> Pooled {
        let lookup = pool.withLock { pool -> Lookup in
            if let pooled = pool.open[key], pooled.connection.isActive { return .ready(pooled) }
            if let opening = pool.opening[key] { return .opening(opening) }
            let opening = Task { try await self.open(key) }
            pool.opening[key] = opening
            return .opening(opening)
        }
        switch lookup {
        case .ready(let pooled): return pooled
        case .opening(let task): return try await task.value
        }
    }

    /// Opens a connection to the address and pools it in place of the closed one, which it then
    /// closes. The server's registration is read again first (it may have changed).
    private func open(_ key: Key) async throws -> Pooled {
        do {
            let record = try registry.server(key.server)
            let states = try registry.recordedStates(of: key.server)
            pool.withLock { $0.known[key.server] = Known(record: record, states: states) }
            let pooled = try await connect(key, record: record)
            let previous = pool.withLock { pool -> Pooled? in
                defer {
                    pool.open[key] = pooled
                    pool.opening[key] = nil
                }
                return pool.open[key]
            }
            if let previous { previous.connection.closeWhenIdle() }
            if states[key.address] != nil { succeeded(key) }
            return pooled
        } catch {
            pool.withLock { $0.opening[key] = nil }
            throw error
        }
    }

    private func connect(_ key: Key, record server: ServerRecord) async throws -> Pooled {
        let tls = TLSFiles(certificate: registry.clientCertificate, privateKey: registry.clientKey,
                           certificateAuthority: server.caFile)
        do {
            let (host, port) = try ServerRegistry.split(key.address)
            let connection = try await ComputeConnection.connect(host: host, port: port, serverName: server.serverName,
                                                                 tls: tls, group: MultiThreadedEventLoopGroup.singleton)
            let catalog: RemoteCatalog
            do {
                catalog = RemoteCatalog(server: key.server, entries: try await connection.hello(clientName: "escrow-host").functions)
            } catch {
                await connection.close()
                throw error
            }
            for (entry, problem) in catalog.unreadable.sorted(by: { $0.key < $1.key }) {
                logger.warning("a compute server's catalog entry cannot be read; its function cannot run there",
                               metadata: ["server": "\(key.server)", "entry": "\(entry)", "problem": "\(problem)"])
            }
            logger.info("connected to a compute server", metadata: ["server": "\(key.server)", "address": "\(key.address)"])
            return Pooled(connection: connection, catalog: catalog)
        } catch {
            logger.info("compute server address failed",
                        metadata: ["server": "\(key.server)", "address": "\(key.address)", "error": "\(error)"])
            throw error
        }
    }

    /// Records that the address failed: one more failure in a row, unless it is already being
    /// skipped (the calls of one outage count once).
    private func failed(_ key: Key, because error: any Error) {
        let now = registry.state.clock.now().seconds
        let alreadySkipped = pool.withLock { $0.known[key.server]?.states[key.address]?.isBackingOff(at: now) ?? false }
        guard !alreadySkipped else { return }
        do {
            let state = try registry.recordFailure(of: key.server, address: key.address, error: "\(error)")
            pool.withLock { $0.known[key.server]?.states[key.address] = state }
            logger.warning("compute server address skipped for a while", metadata: [
                "server": "\(key.server)", "address": "\(key.address)", "failures": "\(state.failures)",
                "seconds": "\(ServerAddressState.backOff(afterFailures: state.failures))",
            ])
        } catch {
            logger.warning("the state of a compute server address could not be recorded",
                           metadata: ["server": "\(key.server)", "address": "\(key.address)", "error": "\(error)"])
        }
    }

    /// Records that the address works again.
    private func succeeded(_ key: Key) {
        pool.withLock { _ = $0.known[key.server]?.states.removeValue(forKey: key.address) }
        do {
            try registry.recordSuccess(of: key.server, address: key.address)
        } catch {
            logger.warning("the state of a compute server address could not be recorded",
                           metadata: ["server": "\(key.server)", "address": "\(key.address)", "error": "\(error)"])
        }
    }

    /// Takes the connection out of the pool (when it is still the pooled one) and closes it once
    /// no call waits on it.
    private func drop(_ key: Key, _ connection: ComputeConnection) {
        pool.withLock { pool in
            if pool.open[key]?.connection === connection { pool.open[key] = nil }
        }
        connection.closeWhenIdle()
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

/// Whether a call's request was written to its connection (set from the event loop).
private final class SentFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
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
