import Escrow
import EscrowCore
import EscrowHost
import EscrowStore
import Foundation
import Logging

extension Escrow {
    /// An escrow running in this process over the escrow home `home` (the paper's library option):
    /// the same pipeline, approvals and audit log as the daemon. Only tools that link the whole
    /// host want this (`import EscrowEmbedded`); an app talks to the daemon (`Escrow.connect`).
    ///
    /// - Throws: `EscrowError.invalidRequest` when `app` is not a reverse-DNS id,
    ///   `EscrowError.daemonUnavailable` when the home cannot be opened.
    public static func embedded(home: URL, app: String, logger: Logger = Logger(label: "escrow")) throws(EscrowError) -> Escrow {
        try checkAppID(app)
        let host: EscrowHost
        do {
            host = try EscrowHost(home: EscrowHome(url: home), logger: logger)
        } catch {
            var message = "\(home.path): \(error)"
            if case .notAnEscrowHome(let path) = error.kind {
                message += "; create it with `escrow --home \(path) init`"
            }
            throw .daemonUnavailable(message)
        }
        return Escrow(app: app, transport: EmbeddedHost(host: host))
    }
}

/// An `EscrowHost` in the app's process, as an `Escrow` transport: the host's own approval wait,
/// and the host's one mapping of its errors to what an app is told.
struct EmbeddedHost: EscrowTransport {
    let host: EscrowHost

    func run(_ request: DataflowRequest, waitForApproval: Duration) async throws(EscrowError) -> Frame {
        do {
            return try await host.run(request, waitingForDecision: waitForApproval).output
        } catch {
            throw EscrowError(AppFailure(hostError: error))
        }
    }

    func close() async {}
}
