/// Why an audit head could not be signed, countersigned, checked or stored.
public enum WitnessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A head or countersigned head breaks the format of docs/PROTOCOL.md (a field's length or
    /// characters).
    case malformed(String)
    /// A signature does not verify with the key it names.
    case badSignature(String)
    /// The witness refuses the head: it does not extend the head it holds for the host.
    case refused(String)
    /// A key file or the witness store cannot be read or written.
    case storage(String)

    public var description: String {
        switch self {
        case .malformed(let reason):
            "malformed audit head: \(reason)"
        case .badSignature(let whose):
            "\(whose) signature does not verify: the head was altered or signed with another key"
        case .refused(let reason):
            reason
        case .storage(let reason):
            reason
        }
    }
}
