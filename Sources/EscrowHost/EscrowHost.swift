import EscrowCore
import EscrowFunctions
import EscrowStore
import Foundation
import Logging
import Synchronization

/// The escrow host: runs dataflows for apps over the individual's data.
///
/// `run(_:)` is the pipeline of the paper's `run(access, compute, server_id)`, one step per call:
/// identify → access → compute → return. Only compute()'s output leaves; the access() result
/// stays inside this call.
///
/// Thread safety: an `EscrowHost` may be shared between tasks; the guarded SQLite connection is
/// used by one run at a time.
public final class EscrowHost: Sendable {
    public let home: EscrowHome
    public let catalog: FunctionCatalog
    private let connection: Mutex<GuardedConnection>
    private let assets: AssetStore
    private let logger: Logger

    /// Opens the host over an initialised escrow home.
    ///
    /// - Throws: `StoreError` when the home is not initialised or cannot be opened.
    public init(home: EscrowHome, catalog: FunctionCatalog = EscrowFunctions.catalog,
                policy: AccessPolicy = AccessPolicy(), logger: Logger) throws(StoreError) {
        self.home = home
        self.catalog = catalog
        self.connection = Mutex(try GuardedConnection(home: home, policy: policy))
        self.assets = AssetStore(root: home.assetsURL)
        self.logger = logger
    }

    /// Runs a dataflow and returns compute()'s output.
    ///
    /// - Throws: `AccessError` for refused or failing access SQL, `CatalogError` for an unknown
    ///   function, `ComputeError.invalidParameter` for a parameter the function does not take,
    ///   `RunError` for an invalid request, an unknown server, an access result that does not
    ///   match the function's declared inputs, or a failing function.
    public func run(_ request: DataflowRequest) async throws -> RunResult {
        let started = GuardClock.now()
        let flow = try identify(request)
        let input = try access(flow)
        let output = try await compute(flow, input: input.frame)
        logger.debug("run finished", metadata: [
            "app": "\(request.app)", "function": "\(flow.function.id)",
            "rows": "\(input.rowCount)", "bytes": "\(input.byteCount)",
        ])
        return RunResult(output: output, flow: flow, rowsRead: input.rowCount, bytesToCompute: input.byteCount,
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
    func identify(_ request: DataflowRequest) throws -> Dataflow {
        guard !request.app.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw RunError.invalidRequest("the app id is empty; pass the app's reverse-DNS id")
        }
        guard !request.purpose.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw RunError.invalidRequest("the purpose is empty; say why the app needs this data")
        }
        let function = try catalog.function(request.compute)
        try function.check(request.parameters)
        if case .server(let id) = request.destination { throw RunError.unknownServer(id) }
        let lineage = try lineage(of: request.access)
        return Dataflow(request: request, function: function.descriptor, lineage: lineage)
    }

    /// Step 3: run the access SQL under the guard and build Ds.
    func access(_ flow: Dataflow) throws -> AccessResult {
        let assets = self.assets
        return try connection.withLock { connection in
            try connection.execute(try connection.prepare(flow.request.access), assets: assets)
        }
    }

    /// Step 4: call the registered function on Ds.
    func compute(_ flow: Dataflow, input: Frame) async throws -> Frame {
        let function = try catalog.function(flow.function.id)
        let context = ComputeContext(parameters: flow.request.parameters)
        do {
            return try await function(input, context: context)
        } catch let error as FrameError {
            throw RunError.inputMismatch(function: flow.function.id, expects: function.inputs.description, problem: error)
        } catch {
            throw RunError.computeFailed(function: flow.function.id, reason: "\(error)")
        }
    }
}
