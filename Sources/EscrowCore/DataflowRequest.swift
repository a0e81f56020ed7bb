/// What an app asks the escrow to run: access() SQL, a registered compute() function or a compute
/// module the app brings, where to run it, and why.
public struct DataflowRequest: Sendable, Hashable {
    /// The app's id (reverse-DNS: `org.example.weather`).
    public var app: String
    /// The purpose the app declares, shown to the individual.
    public var purpose: String
    /// The access() SQL over Contact, Location and Photos.
    public var access: String
    /// The id of a registered compute function; with `module`, empty or the module's own id.
    public var compute: String
    /// A compute module the app brings instead of a registered function (docs/MODULES.md).
    public var module: ModuleSource?
    /// Where compute() runs.
    public var destination: Destination
    /// Non-personal inputs for compute() (part of the flow the individual sees).
    public var parameters: ComputeParameters
    /// The location accuracy the app asks for, if it asks (the individual sees it and may lower
    /// it; nil: the approval alone decides). Part of the dataflow's identity.
    public var locationAccuracy: LocationAccuracy?
    /// Who asked, when the escrow knows (the daemon: `uid N pid M, PATH (SHA-256 HEX)`). Recorded
    /// in the audit entry; not part of the dataflow's identity.
    public var caller: String?
    /// The program that asked, when the escrow knows (runs through the daemon). Its path is part
    /// of the dataflow's identity; its digest is checked against the one the decision was made for.
    public var program: CallerProgram?

    public init(app: String, purpose: String, access: String, compute: String,
                destination: Destination = .device, parameters: ComputeParameters = ComputeParameters(),
                locationAccuracy: LocationAccuracy? = nil, module: ModuleSource? = nil) {
        self.app = app
        self.purpose = purpose
        self.access = access
        self.compute = compute
        self.destination = destination
        self.parameters = parameters
        self.locationAccuracy = locationAccuracy
        self.module = module
    }
}

/// Where the escrow finds a compute module a request names.
public enum ModuleSource: Sendable, Hashable {
    /// The module's bytes (a WebAssembly binary with an `escrow.module` manifest).
    case bytes([UInt8])
    /// The lower-case hex SHA-256 of a module the escrow keeps already.
    case sha256(String)
}
