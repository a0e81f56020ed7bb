import EscrowCore
import EscrowHost
import EscrowRPC
import EscrowStore
import Foundation
import Logging
import NIOPosix

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
    private let transport: Transport

    private enum Transport: Sendable {
        case daemon(DaemonLink)
        case embedded(EscrowHost)
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
        do {
            return Escrow(app: app, transport: .daemon(try await DaemonLink.connect(path)))
        } catch {
            let reason = if case RPCError.connectionFailed(let reason) = error { reason } else { "\(error)" }
            throw .daemonUnavailable("cannot reach the escrow daemon at \(reason); is `escrow serve` running?")
        }
    }

    /// An escrow running in this process over the escrow home `home` (the paper's library option):
    /// the same pipeline, approvals and audit log as the daemon.
    ///
    /// - Throws: `EscrowError.invalidRequest` when `app` is not a reverse-DNS id,
    ///   `EscrowError.daemonUnavailable` when the home cannot be opened.
    public static func embedded(home: URL, app: String, logger: Logger = Logger(label: "escrow")) throws(EscrowError) -> Escrow {
        try checkAppID(app)
        do {
            let host = try EscrowHost(home: EscrowHome(url: home), logger: logger)
            return Escrow(app: app, transport: .embedded(host))
        } catch {
            throw .daemonUnavailable("\(home.path): \(error)")
        }
    }

    /// Runs a dataflow: `access` SQL over Contact, Location and Photos, then the registered
    /// function `compute`, on this device or a compute server, and returns its typed output.
    ///
    /// - Parameters:
    ///   - waitForApproval: when the flow is new or pending, how long to wait for the individual's
    ///     decision before throwing `.awaitingApproval`; nil throws at once.
    /// - Throws: `EscrowError` — `.awaitingApproval(flow:)`, `.denied`, `.revoked`,
    ///   `.unknownFunction`, `.serverUnavailable`, `.invalidAccess(reason)`, `.invalidRequest(reason)`, …
    public func run<F: ComputeFunction>(access: String, compute: F.Type, on destination: Destination = .device,
                                        purpose: String, parameters: [String: String] = [:],
                                        waitForApproval: Duration? = nil) async throws(EscrowError) -> F.Output {
        let frame = try await runFrame(access: access, compute: F.id, on: destination, purpose: purpose,
                                       parameters: parameters, waitForApproval: waitForApproval)
        do {
            return try F.Output(frame: frame)
        } catch {
            throw .failed("the output of \(F.id) could not be read as \(F.Output.self): \(error)")
        }
    }

    /// Runs a dataflow whose function is named by id, and returns its output frame.
    public func runFrame(access: String, compute function: String, on destination: Destination = .device,
                         purpose: String, parameters: [String: String] = [:],
                         waitForApproval: Duration? = nil) async throws(EscrowError) -> Frame {
        // The daemon checks the same rules; checking here too spares a round trip and names the
        // rule to the app's developer at the call.
        do {
            try RequestText.check(app: app, purpose: purpose, sql: access, parameters: parameters)
        } catch {
            throw .invalidRequest(error.description)
        }
        switch transport {
        case .daemon(let link):
            var request = Escrow_V1_RunRequest()
            request.app = app
            request.purpose = purpose
            request.accessSql = access
            request.functionID = function
            if case .server(let id) = destination { request.serverID = id }
            request.parameters = parameters
            let wait = waitForApproval ?? .zero
            request.waitForDecisionMs = UInt64(max(0, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000))
            do {
                return try await link.withConnection { try await $0.run(request, deadline: wait + .seconds(120)).output }
            } catch {
                throw EscrowError(daemon: error)
            }
        case .embedded(let host):
            let request = DataflowRequest(app: app, purpose: purpose, access: access, compute: function,
                                          destination: destination, parameters: ComputeParameters(parameters))
            do {
                return try await Self.runEmbedded(host, request, waitForApproval: waitForApproval)
            } catch {
                throw EscrowError(host: error)
            }
        }
    }

    private static func runEmbedded(_ host: EscrowHost, _ request: DataflowRequest, waitForApproval: Duration?) async throws -> Frame {
        let clock = ContinuousClock()
        let deadline = clock.now + (waitForApproval ?? .zero)
        while true {
            do {
                return try await host.run(request).output
            } catch let DecisionError.awaitingApproval(flow) where clock.now < deadline {
                while clock.now < deadline, (try? host.flows.flow(flow).status) == .pending {
                    try await Task.sleep(for: .milliseconds(100))
                }
                if (try? host.flows.flow(flow).status) == .pending { throw DecisionError.awaitingApproval(flow: flow) }
            }
        }
    }

    private static func checkAppID(_ app: String) throws(EscrowError) {
        do {
            try RequestText.checkAppID(app)
        } catch {
            throw .invalidRequest(error.description)
        }
    }

    /// Closes the connection to the daemon.
    public func close() async {
        if case .daemon(let link) = transport { await link.close() }
    }
}
