/// Where a dataflow's compute() runs: on the escrow host itself, or on an escrow-controlled
/// compute server named by its id (the paper's `server_id`).
public enum Destination: Sendable, Hashable, CustomStringConvertible {
    case device
    case server(String)

    /// `device`, or `server:ID`.
    public var description: String {
        switch self {
        case .device: "device"
        case .server(let id): "server:\(id)"
        }
    }
}
