import EscrowCore
import Foundation

extension Escrow_V1_RunRequest {
    /// The request an app sends the daemon to run `request`, waiting up to `wait` for the
    /// individual's decision (whole milliseconds).
    public init(_ request: DataflowRequest, waitForDecision wait: Duration) {
        self.init()
        app = request.app
        purpose = request.purpose
        accessSql = request.access
        functionID = request.compute
        if case .server(let id) = request.destination { serverID = id }
        parameters = request.parameters.values
        locationAccuracy = request.locationAccuracy?.description ?? ""
        switch request.module {
        case .bytes(let bytes)?: module = Data(bytes)
        case .sha256(let digest)?: moduleSha256 = digest
        case nil: break
        }
        let (seconds, attoseconds) = wait.components
        waitForDecisionMs = switch seconds {
        case ..<0: 0
        case (Int64.max / 1000)...: UInt64(Int64.max)
        default: UInt64(seconds * 1000 + max(0, attoseconds / 1_000_000_000_000_000))
        }
    }

    /// The dataflow the app asks for (without the caller, which the daemon reads from the socket).
    ///
    /// - Throws: `LocationAccuracyError` when the app asks for a location accuracy that cannot be read.
    public func dataflowRequest() throws(LocationAccuracyError) -> DataflowRequest {
        DataflowRequest(app: app, purpose: purpose, access: accessSql, compute: functionID,
                        destination: serverID.isEmpty ? .device : .server(serverID),
                        parameters: ComputeParameters(parameters),
                        locationAccuracy: locationAccuracy.isEmpty ? nil : try LocationAccuracy(parsing: locationAccuracy),
                        module: !module.isEmpty ? .bytes([UInt8](module)) : moduleSha256.isEmpty ? nil : .sha256(moduleSha256))
    }

    /// How long the app waits for the individual's decision.
    public var waitForDecision: Duration { .milliseconds(Int64(clamping: waitForDecisionMs)) }
}
