import EscrowCore
import EscrowEgress
import EscrowHost
import EscrowModules
import EscrowNetwork
import Foundation

/// The settings `escrow config` reads and changes, with the values each allows.
enum ConfigSetting: String, CaseIterable {
    /// How durable each audit entry is: `AuditDurability` (`AuditDurability.settingName`).
    case auditDurability = "audit.durability"
    /// How many days audit entries and recorded requests are kept (`AuditRetention`).
    case retentionDays = "retention-days"
    /// The adblock filter lists tracker domains come from, separated by `:`.
    case trackerLists = "tracker-lists"
    /// Hosts compute functions reach at fixed addresses: `HOST=ADDRESS …`.
    case networkResolve = "network.resolve"
    /// People a masked location's area must hold (`LocationSettings.kName`).
    case locationK = "location.k"
    /// How near the truth a masked point may come, in percent of the approved radius.
    case locationMinimum = "location.minimum-percent"
    /// Instructions one compute-module run may execute (`ModuleSettings.fuelName`).
    case moduleFuel = "modules.fuel"
    /// Memory one compute-module run may have, in MiB.
    case moduleMemory = "modules.memory-mb"
    /// Wall-clock time one compute-module run may take, in milliseconds.
    case moduleWallTime = "modules.wall-time-ms"

    /// The setting called `name`.
    ///
    /// - Throws: `CLIError` naming the settings there are.
    init(named name: String) throws {
        guard let setting = ConfigSetting(rawValue: name) else {
            throw CLIError("unknown setting '\(DisplayText.escaped(name))'; the settings are: \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = setting
    }

    /// The values the setting allows, with what each means and costs; empty for a setting that
    /// takes any value its check accepts.
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
        case .retentionDays, .trackerLists, .networkResolve, .locationK, .locationMinimum, .moduleFuel, .moduleMemory, .moduleWallTime:
            []
        }
    }

    /// Checks that `value` is one the setting allows.
    ///
    /// - Returns: what the value means, in words.
    /// - Throws: `CLIError` saying what the setting takes.
    func check(_ value: String) throws -> String {
        switch self {
        case .auditDurability:
            guard let meaning = values.first(where: { $0.value == value })?.meaning else {
                throw CLIError("\(rawValue) cannot be '\(DisplayText.escaped(value))'; it is one of: \(values.map(\.value).joined(separator: ", "))")
            }
            return meaning
        case .retentionDays:
            let days = try AuditRetention.days(value)
            return "audit entries and the requests recorded with them are deleted \(days) day\(days == 1 ? "" : "s") after they were written"
        case .trackerLists:
            let paths = value.split(separator: ":").map(String.init)
            guard !paths.isEmpty else { throw CLIError("\(rawValue) needs at least one file (adblock filter lists, separated by ':')") }
            let lists: TrackerList
            do {
                lists = try TrackerList(filterLists: paths)
            } catch {
                throw CLIError("\(rawValue) cannot be set: \(error); give adblock filter lists that exist, separated by ':', "
                               + "or run `escrow config unset \(rawValue)` for EasyList and EasyPrivacy")
            }
            return "\(lists.count) tracker domains from \(paths.count) list\(paths.count == 1 ? "" : "s")"
        case .networkResolve:
            let resolution = try HostResolution(parsing: value.split(separator: " "))
            return resolution.entries.isEmpty ? "every host is found through DNS"
                : "compute functions reach \(resolution.entries.joined(separator: ", ")) instead of looking them up"
        case .locationK:
            let k = try LocationSettings.k(value)
            return k == 1 ? "a masked location is used as is, however few people live around it"
                : "where fewer than \(k) people live within the approved radius, the function also runs on \(k - 1) dummy locations, so the app's service cannot tell which request is yours"
        case .locationMinimum:
            let percent = try LocationSettings.minimumPercent(value)
            return "a masked location is never nearer than \(percent) % of the approved radius to where you are"
        case .moduleFuel:
            return "a compute module's run stops after \(try ModuleSettings.fuel(value)) instructions"
        case .moduleMemory:
            return "a compute module's run may have at most \(try ModuleSettings.memoryMegabytes(value)) MiB of memory"
        case .moduleWallTime:
            return "a compute module's run stops after \(try ModuleSettings.wallTimeMilliseconds(value)) ms, network waits included"
        }
    }

    /// The value in force on `state` (the default when the setting was never changed).
    func current(on state: StateDatabase) throws -> String {
        switch self {
        case .auditDurability: state.durability.rawValue
        case .retentionDays: try state.setting(rawValue) ?? "none (audit entries are kept until you delete the escrow home)"
        case .trackerLists: try state.setting(rawValue) ?? TrackerList.debianPaths.joined(separator: ":")
        case .networkResolve: try state.setting(rawValue) ?? ""
        case .locationK: try state.setting(rawValue) ?? String(LocationSettings.defaultK)
        case .locationMinimum: try state.setting(rawValue) ?? String(LocationSettings.defaultMinimumPercent)
        case .moduleFuel: try state.setting(rawValue) ?? String(ModuleLimits.default.fuel)
        case .moduleMemory: try state.setting(rawValue) ?? String(ModuleLimits.default.memoryBytes / 1024 / 1024)
        case .moduleWallTime: try state.setting(rawValue) ?? String(ModuleSandbox.milliseconds(ModuleLimits.default.wallTime))
        }
    }
}
