import EscrowCore
import EscrowEgress
import EscrowFunctions
import EscrowModules
import EscrowNetwork
import EscrowStore
import EscrowWire
import Foundation
import Logging
import Synchronization

/// The escrow host: runs dataflows for apps over the individual's data.
///
/// `run(_:)` is the pipeline of the paper's `run(access, compute, server_id)`, one step per call:
/// identify → decide → access → compute → audit → return. Only compute()'s output leaves; the
/// access() result stays inside this call. Every attempt, allowed or not, gets an audit entry, and
/// the output is returned only after its entry is committed.
///
/// Thread safety: an `EscrowHost` may be shared between tasks; the guarded SQLite connection is
/// used by one run at a time.
public final class EscrowHost: Sendable {
    public let home: EscrowHome
    public let catalog: FunctionCatalog
    /// The individual's dataflows and decisions.
    public let flows: FlowStore
    /// The audit log of every run attempt.
    public let audit: AuditLog
    /// The compute servers this escrow may send data to.
    public let servers: ServerRegistry
    /// The witnesses the audit log's head is sent to, and the check against them.
    public let witnessing: AuditWitnessing
    /// The individual's egress filters (block, ignore, tracker), read afresh by every run.
    public let filters: EgressFilters
    /// Classifies the requests compute functions make (registrable domain, tracker).
    public let classifier: EgressClassifier
    /// The compute modules apps brought or the individual added.
    public let modules: ModuleStore
    private let clock: any WallClock
    private let remote: RemoteCompute
    private let network: any NetworkClient
    let connection: Mutex<GuardedConnection>
    private let assets: AssetStore
    /// The location maskers of recent flows, with the radii they computed.
    let maskers = MaskerCache()
    let logger: Logger

    /// Opens the host over an initialised escrow home, deleting audit entries older than its
    /// retention setting, if it has one.
    ///
    /// - Throws: `StoreError` when the home is not initialised or cannot be opened.
    /// - Parameters:
    ///   - remoteDeadline: how long a compute server may take to answer one call.
    ///   - network: the client compute functions running here reach the network through; by default
    ///     the escrow's HTTP client, reaching the hosts of the home's `network.resolve` setting at
    ///     their fixed addresses.
    ///   - clock: the time decisions, approval expiry and audit entries go by (the system's by
    ///     default; the CLI and the daemon use that).
    public init(home: EscrowHome, catalog: FunctionCatalog = EscrowFunctions.catalog,
                policy: AccessPolicy = AccessPolicy(), remoteDeadline: Duration = .seconds(30),
                network: (any NetworkClient)? = nil, clock: any WallClock = .system,
                logger: Logger) throws(StoreError) {
        self.home = home
        self.catalog = catalog
        self.connection = Mutex(try GuardedConnection(home: home, policy: policy))
        let state = try StateDatabase(home: home, clock: clock)
        self.flows = FlowStore(state: state)
        self.audit = AuditLog(state: state)
        self.servers = ServerRegistry(state: state)
        self.witnessing = AuditWitnessing(audit: audit, servers: servers, logger: logger)
        self.filters = EgressFilters(state: state)
        self.classifier = EgressClassifier.shared(try Self.egressSources(state))
        self.clock = clock
        self.remote = RemoteCompute(registry: servers, deadline: remoteDeadline, logger: logger)
        if let network {
            self.network = network
        } else {
            self.network = try Self.networkClient(state)
        }
        self.assets = AssetStore(root: home.assetsURL)
        self.modules = ModuleStore(home: home, catalog: catalog)
        self.logger = logger
        // The retention setting applies whenever a host opens (the daemon also applies it hourly).
        applyRetention()
    }

    /// Makes this host try every compute server's addresses from the `index`th on (modulo their
    /// count), instead of from a place chosen at random per host: for tests of failover.
    package func startServerAddresses(at index: Int) {
        remote.startAddresses(at: index)
    }

    /// Runs a dataflow and returns compute()'s output.
    ///
    /// - Throws: `RequestTextError` for an app id, purpose, SQL or parameter that breaks
    ///   `RequestText`'s rules, `AccessError` for refused or failing access SQL, `CatalogError` for an unknown
    ///   function, `ComputeError.invalidParameter` for a parameter the function does not take,
    ///   `RunError` for an invalid request, an unknown server, an access result that does not
    ///   match the function's declared inputs, or a failing function.
    public func run(_ request: DataflowRequest) async throws -> RunResult {
        let started = GuardClock.now()
        var facts = AuditDraft(flowID: nil, app: request.app, purpose: request.purpose, functionID: request.compute,
                               outcome: .failed, destination: request.destination.description)
        facts.caller = request.caller
        switch request.module {
        case .bytes(let bytes)?: facts.moduleSHA256 = ComputeModule.sha256(of: bytes)
        case .sha256(let digest)?: facts.moduleSHA256 = DisplayText.escaped(String(digest.prefix(64)))
        case nil: break
        }
        let flow: Dataflow
        let input: AccessResult
        let output: Frame
        var egress: Egress?
        let attempts = ServerAttemptLog()
        do {
            flow = try await identify(request)
            facts.functionID = flow.function.id
            facts.reads = flow.lineage.sorted.map(\.description)
            let decision = try decide(flow)
            facts.flowID = decision.id
            let plan = try locationPlan(for: flow, accuracy: decision.accuracy)
            facts.location = plan.facts
            let inputs = try access(flow, views: plan.views)
            input = inputs[0]
            facts.rowsRead = input.rowCount
            facts.bytesToCompute = input.byteCount
            egress = Egress(filters: filters, input: input.frame, network: network, clock: clock)
            let computed = try await compute(flow, inputs: inputs.map(\.frame), egress: egress, attempts: attempts)
            facts.egress = record(egress)
            facts.attempts = attempts.all
            output = computed.output
            facts.bytesSent = computed.bytesSent
            facts.bytesReceived = computed.bytesReceived
            facts.serverLatencyMs = computed.serverLatencyMs
            facts.serverComputeMs = computed.serverComputeMs
        } catch {
            if let refusal = error as? DecisionError { facts.flowID = refusal.flow }
            if let incomplete = error as? KAnonymityError { facts.location?.runs = incomplete.completed }
            if error is RequestTextError {
                // The refused texts are kept as a person would be shown them, and bounded: the
                // log is no place for kilobytes of hostile text.
                facts.app = Self.bounded(request.app)
                facts.purpose = Self.bounded(request.purpose)
            }
            // A function that failed may have contacted services before it did: that is recorded too.
            facts.egress = record(egress)
            facts.attempts = attempts.all
            facts.outcome = Self.outcome(of: error)
            facts.reason = "\(error)"
            facts.durationMs = GuardClock.seconds(since: started) * 1000
            record(facts)
            throw error
        }
        facts.outcome = .ok
        facts.outputSHA256 = FrameDigest.sha256(output, known: input.knownDigests)
        facts.durationMs = GuardClock.seconds(since: started) * 1000
        let entry = try audit.append(facts)
        logger.debug("run finished", metadata: [
            "flow": "\(facts.flowID ?? "")", "function": "\(flow.function.id)",
            "rows": "\(input.rowCount)", "bytes": "\(input.byteCount)", "audit": "\(entry.seq)",
        ])
        return RunResult(output: output, flow: flow, flowID: facts.flowID ?? "", auditEntry: entry,
                         rowsRead: input.rowCount, bytesToCompute: input.byteCount,
                         duration: GuardClock.seconds(since: started))
    }

    /// Runs `access` then the compute function `compute` for `app`.
    public func run(app: String, purpose: String, access: String, compute: String,
                    on destination: Destination = .device,
                    parameters: ComputeParameters = ComputeParameters()) async throws -> RunResult {
        try await run(DataflowRequest(app: app, purpose: purpose, access: access, compute: compute,
                                      destination: destination, parameters: parameters))
    }

    /// The column-level lineage of access SQL, checked by the guard.
    public func lineage(of sql: String) throws(AccessError) -> Lineage {
        try connection.withLock { connection throws(AccessError) in try connection.lineage(of: sql) }
    }

    // MARK: Steps

    /// Step 1: check the request, the SQL (guard and lineage), the function and the destination.
    func identify(_ request: DataflowRequest) async throws -> Dataflow {
        try RequestText.check(app: request.app, purpose: request.purpose, sql: request.access,
                              parameters: request.parameters.sorted.lazy.map { (key: $0.name, value: $0.value) })
        let descriptor: FunctionDescriptor
        var module: ComputeModule?
        if let source = request.module {
            // Checking a module new to the escrow parses and compiles it: off the cooperative pool.
            let loaded = try await ModuleSandbox.shared.offPool { try self.module(source) }
            guard request.compute.isEmpty || request.compute == loaded.manifest.id else {
                throw ModuleError.badManifest("the request names compute \(DisplayText.escaped(request.compute)), "
                    + "but the module it brings is \(loaded.manifest.id); name the module's id or nothing")
            }
            try ParameterDeclaration.check(request.parameters, against: loaded.manifest.parameters)
            descriptor = loaded.descriptor
            module = loaded
        } else {
            let function = try catalog.function(request.compute)
            try function.check(request.parameters)
            descriptor = function.descriptor
        }
        if case .server(let id) = request.destination { _ = try servers.server(id) }
        let lineage = try lineage(of: request.access)
        return Dataflow(request: request, function: descriptor, module: module, lineage: lineage,
                        identity: FlowIdentity(request: request, function: descriptor, moduleBytes: module?.bytes.count))
    }

    /// The module a request brings (checked and kept) or names by digest (kept already).
    ///
    /// - Throws: `ModuleError` when it is refused or the home does not keep it.
    func module(_ source: ModuleSource) throws(ModuleError) -> ComputeModule {
        switch source {
        case .bytes(let bytes): try modules.add(bytes)
        case .sha256(let digest): try modules.module(digest)
        }
    }

    /// Step 2: the individual's decision. A new flow is recorded as pending.
    ///
    /// - Returns: the flow's short id and the location accuracy its run gets.
    /// - Throws: `DecisionError` when the flow may not run now.
    func decide(_ flow: Dataflow) throws -> (id: String, accuracy: LocationAccuracy) {
        switch try flows.decide(flow.identity, accessSQL: flow.request.access, lineage: flow.lineage,
                                program: flow.request.program) {
        case .allowed(let id, let accuracy): return (id, accuracy)
        case .refused(let refusal): throw refusal
        }
    }

    /// Step 5 for an attempt that did not produce output: audit it. The app gets the original
    /// error either way; a failure to audit it is logged.
    private func record(_ facts: AuditDraft) {
        do {
            try audit.append(facts)
        } catch {
            logger.error("could not audit a refused or failed run", metadata: ["error": "\(error.underlying)"])
        }
    }

    /// Step 5, egress: what the function's requests came to, classified, those to ignored domains
    /// left out.
    private func record(_ egress: Egress?) -> [EgressRecord] {
        guard let egress else { return [] }
        let observations = egress.recorder.observations
        guard !observations.isEmpty else { return [] }
        let policy: EgressPolicy
        do {
            // Read already: a request is recorded only after the filters were.
            policy = try egress.policy()
        } catch {
            // Then record every request, ignoring nothing: more is shown, never less.
            logger.error("the egress filters cannot be read; requests are recorded unfiltered", metadata: ["error": "\(error)"])
            policy = EgressPolicy()
        }
        let records = classifier.classify(observations, policy: policy)
        Self.reportUnreadableLists(classifier, logger: logger)
        return records
    }

    /// A refused request's text as the audit keeps it: escaped for display, at most 300 characters.
    static func bounded(_ text: String) -> String {
        let shown = DisplayText.escaped(text)
        return shown.count > 300 ? String(shown.prefix(299)) + "…" : shown
    }

    /// The audit outcome of a run that threw `error`.
    static func outcome(of error: any Error) -> AuditOutcome {
        switch error as? DecisionError {
        case .awaitingApproval?: .pending
        case .denied?: .denied
        case .revoked?: .revoked
        case nil: .failed
        }
    }

    /// Step 3: run the access SQL under the guard and build Ds, once per location view (the
    /// stored location, a masked one, or the masked one and k−1 dummies).
    func access(_ flow: Dataflow, views: [LocationView?] = [nil]) throws -> [AccessResult] {
        let assets = self.assets
        return try connection.withLock { connection in
            try views.map { view in try connection.run(flow.request.access, view: view, assets: assets) }
        }
    }

    /// Step 4 for one input or several: with dummy inputs, every input runs at the same time,
    /// started in random order, so the app's service sees requests alike in shape and time; only
    /// the first (the real) input's output is kept. A compute server that is busy (`OVERLOADED`)
    /// is asked again shortly, so k calls go through a server that takes fewer at once. Should any
    /// run fail, the whole run fails and the app gets no output: its request would have stood
    /// out among fewer (`KAnonymityError`, with how many completed).
    func compute(_ flow: Dataflow, inputs: [Frame], egress: Egress?, attempts: ServerAttemptLog) async throws -> ComputeOutcome {
        guard inputs.count > 1 else { return try await compute(flow, input: inputs[0], egress: egress, attempts: attempts) }
        var outcomes: [Result<ComputeOutcome, any Error>] = Array(repeating: .failure(CancellationError()), count: inputs.count)
        await withTaskGroup(of: InputOutcome.self) { group in
            for index in inputs.indices.shuffled() {
                group.addTask {
                    do {
                        return InputOutcome(index: index, outcome: .success(try await self.computeWhenAccepted(flow, input: inputs[index], egress: egress, attempts: attempts)))
                    } catch {
                        return InputOutcome(index: index, outcome: .failure(error))
                    }
                }
            }
            for await finished in group where outcomes.indices.contains(finished.index) {
                outcomes[finished.index] = finished.outcome
            }
        }
        let completed = outcomes.filter { if case .success = $0 { true } else { false } }.count
        let real: ComputeOutcome
        switch outcomes[0] {
        case .success(let outcome):
            real = outcome
        case .failure(let error):
            throw KAnonymityError(completed: completed, of: inputs.count, failure: error, real: true)
        }
        var combined = real
        for outcome in outcomes.dropFirst() {
            switch outcome {
            case .success(let dummy):
                combined.bytesSent += dummy.bytesSent
                combined.bytesReceived += dummy.bytesReceived
            case .failure(let error):
                logger.notice("a run on a dummy location failed; the run's output is withheld",
                              metadata: ["function": "\(flow.function.id)", "error": "\(error)"])
                throw KAnonymityError(completed: completed, of: inputs.count, failure: error, real: false)
            }
        }
        return combined
    }

    /// What one of several inputs' runs came to.
    private struct InputOutcome: Sendable {
        let index: Int
        let outcome: Result<ComputeOutcome, any Error>
    }

    /// `compute(_:input:egress:)`, asked again while a compute server answers that it is busy
    /// (at most about ten seconds).
    private func computeWhenAccepted(_ flow: Dataflow, input: Frame, egress: Egress?, attempts: ServerAttemptLog) async throws -> ComputeOutcome {
        var attempt = 0
        while true {
            do {
                return try await compute(flow, input: input, egress: egress, attempts: attempts)
            } catch RPCError.remote(code: .overloaded, _) where attempt < 200 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(min(50, 5 * attempt)))
            }
        }
    }

    /// Step 4: call the registered function on Ds, here or on the flow's compute server. Its
    /// requests go through `egress`'s recorder here, or are reported back by the server into it.
    func compute(_ flow: Dataflow, input: Frame, egress: Egress?, attempts: ServerAttemptLog) async throws -> ComputeOutcome {
        if let module = flow.module { return try await compute(flow, module: module, input: input, egress: egress, attempts: attempts) }
        let function = try catalog.function(flow.function.id)
        if case .server(let serverID) = flow.request.destination {
            // A function that can contact nothing may be sent again when its server died with the
            // call: no one but the compute servers could tell it ran twice.
            return try await remote.compute(on: serverID, function: flow.function, input: input,
                                            parameters: flow.request.parameters, egress: egress, attempts: attempts,
                                            mayResend: !function.parameters.contains(where: \.namesAService))
        }
        let context = ComputeContext(parameters: flow.request.parameters, network: egress?.recorder ?? network)
        do {
            return ComputeOutcome(output: try await function(input, context: context))
        } catch let error as FrameError {
            throw RunError.inputMismatch(function: flow.function.id, expects: function.inputs.description, problem: error)
        } catch {
            throw RunError.computeFailed(function: flow.function.id, underlying: error)
        }
    }

    /// Step 4 for a compute module: here, in the sandbox, under the home's limits.
    private func compute(_ flow: Dataflow, module: ComputeModule, input: Frame, egress: Egress?,
                         attempts: ServerAttemptLog) async throws -> ComputeOutcome {
        let id = module.manifest.id
        if case .server(let serverID) = flow.request.destination {
            do {
                return try await remote.compute(on: serverID, function: flow.function, module: module, input: input,
                                                parameters: flow.request.parameters, egress: egress, attempts: attempts,
                                                mayResend: !module.contactsNetwork)
            } catch RPCError.remote(code: .functionFailed, let message) {
                throw RunError.moduleFailed(module: "\(id)@\(module.manifest.version) (\(module.sha256.prefix(12)))",
                                            underlying: .onServer(server: serverID, message))
            }
        }
        let limits = try ModuleSettings.read(flows.state)
        let context = ComputeContext(parameters: flow.request.parameters, network: egress?.recorder ?? network)
        let logger = self.logger
        do {
            let output = try await ModuleSandbox.shared.run(module, input: input, context: context, limits: limits) { line in
                // The individual's own log: a module's lines may hold their data, so never at a level
                // above debug, and never on a compute server (which drops them).
                logger.debug("module log", metadata: ["module": "\(id)", "line": "\(line)"])
            }
            return ComputeOutcome(output: output)
        } catch let error as FrameError {
            throw RunError.inputMismatch(function: id, expects: module.manifest.inputs.description, problem: error)
        } catch let error as ModuleRunError {
            throw RunError.moduleFailed(module: "\(id)@\(module.manifest.version) (\(module.sha256.prefix(12)))", underlying: error)
        }
    }
}
