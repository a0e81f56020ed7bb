import EscrowCore
import EscrowWire
import Foundation

/// What an app imports to run dataflows over the individual's data through their escrow.
///
/// ```swift
/// let escrow = try await Escrow.connect(app: "org.example.weather")
/// let region = try await escrow.run(
///     access: "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
///     compute: LocationRegion.self, purpose: "Show the weather where you are",
///     parameters: ["radius": "1000"])
/// ```
///
/// The app never receives the data its SQL reads: only compute()'s output crosses the socket.
/// Thread safety: an `Escrow` may be shared between tasks.
public struct Escrow: Sendable {
    /// The app's id, sent with every run.
    public let app: String
    private let transport: any EscrowTransport

    /// An escrow reached some other way than the daemon's socket (`EscrowEmbedded`), for an app
    /// id the caller has checked (`checkAppID`).
    package init(app: String, transport: any EscrowTransport) {
        self.app = app
        self.transport = transport
    }

    /// Connects to the escrow daemon (`escrow serve`): at `socket`, else `$ESCROW_SOCKET`, else
    /// `$ESCROW_HOME/escrow.sock`. When the daemon has closed the connection meanwhile (it closes
    /// idle ones), a run connects again.
    ///
    /// - Throws: `EscrowError.invalidRequest` when `app` is not a reverse-DNS id,
    ///   `EscrowError.daemonUnavailable` when no daemon answers there.
    public static func connect(app: String, socket: String? = nil) async throws(EscrowError) -> Escrow {
        try checkAppID(app)
        // An empty variable counts as unset, as in the shell's ${VAR:-…}.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.value.isEmpty }
        guard let path = socket ?? environment["ESCROW_SOCKET"]
                ?? environment["ESCROW_HOME"].map({ URL(fileURLWithPath: $0).appendingPathComponent("escrow.sock").path }) else {
            throw .daemonUnavailable("no socket given: pass socket:, or set ESCROW_SOCKET or ESCROW_HOME")
        }
        let link: DaemonLink
        do {
            link = try await DaemonLink.connect(path)
        } catch {
            let reason = if case RPCError.connectionFailed(let reason) = error { reason } else { "\(error)" }
            throw .daemonUnavailable("cannot reach the escrow daemon at \(reason); is `escrow serve` running?")
        }
        return Escrow(app: app, transport: link)
    }

    /// Runs a dataflow: `access` SQL over Contact, Location and Photos, then the registered
    /// function `compute`, on this device or a compute server, and returns its typed output.
    ///
    /// - Parameters:
    ///   - locationAccuracy: how precisely the app needs to know where the individual is, when its
    ///     SQL reads location (`.city`, `.radius(meters: 1000)`…): the individual sees it and may
    ///     lower it, never raise it. Nil asks for nothing (the individual's approval decides).
    ///     Asking for less than exact is the way to be approved by people who would say no.
    ///   - waitForApproval: when the flow is new or pending, how long to wait for the individual's
    ///     decision before throwing `.awaitingApproval`; nil throws at once.
    /// - Throws: `EscrowError` — `.awaitingApproval(flow:)`, `.denied`, `.revoked`,
    ///   `.unknownFunction`, `.serverUnavailable`, `.invalidAccess(reason)`, `.invalidRequest(reason)`, …
    public func run<F: ComputeFunction>(access: String, compute: F.Type, on destination: Destination = .device,
                                        purpose: String, parameters: [String: String] = [:],
                                        locationAccuracy: LocationAccuracy? = nil,
                                        waitForApproval: Duration? = nil) async throws(EscrowError) -> F.Output {
        let frame = try await runFrame(access: access, compute: F.id, on: destination, purpose: purpose,
                                       parameters: parameters, locationAccuracy: locationAccuracy,
                                       waitForApproval: waitForApproval)
        do {
            return try F.Output(frame: frame)
        } catch {
            throw .failed("the output of \(F.id) could not be read as \(F.Output.self): \(error)")
        }
    }

    /// Runs a dataflow whose function is named by id, and returns its output frame.
    public func runFrame(access: String, compute function: String, on destination: Destination = .device,
                         purpose: String, parameters: [String: String] = [:],
                         locationAccuracy: LocationAccuracy? = nil,
                         waitForApproval: Duration? = nil) async throws(EscrowError) -> Frame {
        try checkTexts(purpose: purpose, access: access, parameters: parameters)
        let request = DataflowRequest(app: app, purpose: purpose, access: access, compute: function,
                                      destination: destination, parameters: ComputeParameters(parameters),
                                      locationAccuracy: locationAccuracy)
        return try await transport.run(request, waitForApproval: waitForApproval ?? .zero)
    }

    /// Runs a dataflow with a compute module the app brings instead of a registered function
    /// (docs/MODULES.md): `access` SQL, then the module's `escrow_run` in the escrow's sandbox, on
    /// this device or a compute server; returns its output frame.
    ///
    /// The module's SHA-256 is part of the dataflow: the individual approves this exact module,
    /// shown with what its imports let it do, and any change to it is a new dataflow to approve.
    ///
    /// - Parameters:
    ///   - module: the module's bytes (a WebAssembly binary with an `escrow.module` manifest), at
    ///     most `RPCLimits.maximumModuleLength` (16 MiB).
    ///   - Other parameters: as `run(access:compute:…)`.
    /// - Throws: `EscrowError.invalidModule` when the escrow refuses the module (not valid
    ///   WebAssembly, an import it does not offer, no manifest…) or it is over 16 MiB (refused
    ///   here, before it is sent), and the errors of `runFrame`.
    public func run(access: String, module: [UInt8], on destination: Destination = .device,
                    purpose: String, parameters: [String: String] = [:],
                    locationAccuracy: LocationAccuracy? = nil,
                    waitForApproval: Duration? = nil) async throws(EscrowError) -> Frame {
        try checkTexts(purpose: purpose, access: access, parameters: parameters)
        guard !module.isEmpty else { throw .invalidModule("the module is empty: pass the bytes of a WebAssembly module") }
        // The daemon would refuse it too, but by closing the connection while the app still writes.
        guard module.count <= RPCLimits.maximumModuleLength else {
            throw .invalidModule(RPCError.moduleTooLarge(length: module.count, maximum: RPCLimits.maximumModuleLength).description)
        }
        let request = DataflowRequest(app: app, purpose: purpose, access: access, compute: "",
                                      destination: destination, parameters: ComputeParameters(parameters),
                                      locationAccuracy: locationAccuracy, module: .bytes(module))
        return try await transport.run(request, waitForApproval: waitForApproval ?? .zero)
    }

    /// `run(access:module:…)` with the module read from a file (`.wasm`).
    ///
    /// - Throws: `EscrowError.invalidModule` when the file cannot be read, and the errors of
    ///   `run(access:module:…)` with bytes.
    public func run(access: String, module file: URL, on destination: Destination = .device,
                    purpose: String, parameters: [String: String] = [:],
                    locationAccuracy: LocationAccuracy? = nil,
                    waitForApproval: Duration? = nil) async throws(EscrowError) -> Frame {
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: file))
        } catch {
            throw .invalidModule("cannot read the module \(file.path): \(error.localizedDescription)")
        }
        return try await run(access: access, module: bytes, on: destination, purpose: purpose, parameters: parameters,
                             locationAccuracy: locationAccuracy, waitForApproval: waitForApproval)
    }

    /// Checks a request's texts as the daemon will (`RequestText`): checking here too spares a
    /// round trip and names the rule to the app's developer at the call.
    private func checkTexts(purpose: String, access: String, parameters: [String: String]) throws(EscrowError) {
        do {
            try RequestText.check(app: app, purpose: purpose, sql: access, parameters: parameters)
        } catch {
            throw .invalidRequest(error.description)
        }
    }

    /// Refuses an app id that is not reverse-DNS (`RequestText`), as `.invalidRequest`.
    package static func checkAppID(_ app: String) throws(EscrowError) {
        do {
            try RequestText.checkAppID(app)
        } catch {
            throw .invalidRequest(error.description)
        }
    }

    /// Closes the connection to the daemon.
    public func close() async {
        await transport.close()
    }
}

/// How an `Escrow` reaches the escrow host: the daemon's socket (`DaemonLink`), or a host in the
/// app's own process (`EscrowEmbedded`).
package protocol EscrowTransport: Sendable {
    /// Runs `request`, waiting up to `waitForApproval` for the individual's decision when the
    /// dataflow awaits it, and returns compute()'s output.
    func run(_ request: DataflowRequest, waitForApproval: Duration) async throws(EscrowError) -> Frame
    /// Lets go of the connection (or the host).
    func close() async
}
