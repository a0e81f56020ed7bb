import EscrowCore

/// A setting of the escrow home (`escrow config set`) with a value it does not take: which
/// setting, the value, and what it takes.
public struct SettingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let value: String
    public let takes: String

    public var description: String {
        "\(name) must be \(takes), not '\(DisplayText.escaped(String(value.prefix(40))))'"
    }
}
