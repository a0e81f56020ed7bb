import EscrowCore

/// What makes two dataflow requests the same dataflow: app, purpose, normalized access SQL,
/// compute function (id, version, code digest), parameters, destination and, for runs through
/// the daemon, the path of the program that asked. A change to any of
/// them is a different flow that needs its own decision; a change of the SQL's layout (spaces,
/// line breaks, comments) is not.
public struct FlowIdentity: Sendable, Hashable {
    public let app: String
    public let purpose: String
    public let normalizedSQL: String
    public let function: FunctionDescriptor
    public let parameters: ComputeParameters
    public let destination: Destination
    /// The path of the program that asked (runs through the daemon); nil for in-process runs.
    public let programPath: String?
    /// The location accuracy the app asked for, if it asked.
    public let locationAccuracy: LocationAccuracy?
    /// The size of the compute module the flow runs, when it runs one (its digest is `function`'s).
    public let moduleBytes: Int?

    public init(request: DataflowRequest, function: FunctionDescriptor, moduleBytes: Int? = nil) {
        app = request.app
        purpose = request.purpose
        normalizedSQL = SQLText.normalized(request.access)
        self.function = function
        parameters = request.parameters
        self.destination = request.destination
        programPath = request.program?.path
        locationAccuracy = request.locationAccuracy
        self.moduleBytes = moduleBytes
    }

    /// SHA-256 (hex) of the canonical encoding: every part length-prefixed, in a fixed order.
    public var key: String {
        var encoder = CanonicalEncoder()
        encoder.append("escrow.flow.v1")
        encoder.append(app)
        encoder.append(purpose)
        encoder.append(normalizedSQL)
        encoder.append(function.id)
        encoder.append(Int64(function.version))
        encoder.append(function.codeDigest)
        encoder.append(Int64(parameters.values.count))
        for (name, value) in parameters.sorted {
            encoder.append(name)
            encoder.append(value)
        }
        encoder.append(destination.description)
        // Added with schema version 6, only when known, so flows asked in-process keep their keys.
        if let programPath {
            encoder.append("program")
            encoder.append(programPath)
        }
        // Added with schema version 9, only when the app asks for an accuracy: another ask is
        // another flow, while the individual's own choice is a decision on the same flow.
        if let locationAccuracy {
            encoder.append("location-accuracy")
            encoder.append(locationAccuracy.description)
        }
        // Added with schema version 10, only for a compute module: a module is never the built-in
        // function of the same id, version and digest.
        if moduleBytes != nil {
            encoder.append("module")
        }
        return encoder.sha256()
    }

    /// The parameters as a JSON object with sorted keys.
    public var parametersJSON: String {
        var writer = JSONWriter()
        writer.object { object in
            for (name, value) in parameters.sorted { object.field(name, value) }
        }
        return writer.text
    }
}
