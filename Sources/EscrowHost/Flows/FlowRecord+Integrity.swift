import EscrowCore
import Foundation

extension FlowRecord {
    /// The flow key the record's own fields give (app, purpose, normalized SQL, function,
    /// parameters, destination, program, the accuracy the app asked for), or nil when its parameters cannot be read.
    ///
    /// It equals `key` unless the record was changed outside the escrow: the escrow computed
    /// `key` from the app's request, and approvals are looked up by it, so a record whose shown
    /// fields no longer give its key shows something else than what a decision would apply to.
    public var identityKey: String? {
        guard let data = parametersJSON.data(using: .utf8),
              let parameters = try? JSONDecoder().decode([String: String].self, from: data)
        else { return nil }
        let destination: Destination = destination.hasPrefix("server:")
            ? .server(String(destination.dropFirst("server:".count))) : .device
        var request = DataflowRequest(app: app, purpose: purpose, access: accessSQL, compute: function.id,
                                      destination: destination, parameters: ComputeParameters(parameters),
                                      locationAccuracy: requestedAccuracy)
        request.program = programPath.map { CallerProgram(path: $0, sha256: programDigest ?? "") }
        return FlowIdentity(request: request, function: function, moduleBytes: moduleBytes).key
    }
}
