import EscrowHost

/// The settings `escrow config` reads and changes, with the values each allows.
enum ConfigSetting: String, CaseIterable {
    /// How durable each audit entry is: `AuditDurability` (`AuditDurability.settingName`).
    case auditDurability = "audit.durability"

    /// The setting called `name`.
    ///
    /// - Throws: `CLIError` naming the settings there are.
    init(named name: String) throws {
        guard let setting = ConfigSetting(rawValue: name) else {
            throw CLIError("unknown setting '\(name)'; the settings are: \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = setting
    }

    /// The values the setting allows, with what each means and costs.
    var values: [(value: String, meaning: String)] {
        switch self {
        case .auditDurability:
            AuditDurability.allCases.map { durability in
                switch durability {
                case .processCrash:
                    (durability.rawValue, "the default: every audit entry survives a crash or kill of the process")
                case .powerLoss:
                    (durability.rawValue, "also survives power loss: an fsync per commit, about 60–130 µs more per run on these machines")
                }
            }
        }
    }

    /// Checks that `value` is one the setting allows.
    ///
    /// - Throws: `CLIError` listing the allowed values.
    func check(_ value: String) throws {
        guard values.contains(where: { $0.value == value }) else {
            throw CLIError("\(rawValue) cannot be '\(value)'; it is one of: \(values.map(\.value).joined(separator: ", "))")
        }
    }

    /// The value in force on `state` (the default when the setting was never changed).
    func current(on state: StateDatabase) -> String {
        switch self {
        case .auditDurability: state.durability.rawValue
        }
    }
}
