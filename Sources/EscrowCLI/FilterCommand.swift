import ArgumentParser
import EscrowCore
import EscrowEgress
import EscrowHost

/// `escrow filter`: block, ignore or flag the domains compute code contacts.
struct FilterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Block, ignore or flag as a tracker the domains compute code contacts.",
        discussion: """
            A filter covers its domain and every name under it: blocking example.com
            blocks www.example.com and a.b.example.com, never badexample.com.
              block    the request fails inside the compute function; it is recorded as blocked
              ignore   the request goes through and is not recorded
              tracker  the domain counts as a tracker (besides EasyList and EasyPrivacy)
            Filters apply from the next run on, on this device and on compute servers.

            Examples:
              escrow filter block doubleclick.net
              escrow filter ignore time.example
              escrow filter list
              escrow filter remove doubleclick.net
            """,
        subcommands: [FilterListCommand.self, FilterBlockCommand.self, FilterIgnoreCommand.self, FilterTrackerCommand.self,
                      FilterRemoveCommand.self],
        defaultSubcommand: FilterListCommand.self
    )
}

/// What the three setting subcommands share.
private func setFilter(_ action: FilterAction, domain: String, global: GlobalOptions) async throws {
    try await reportingErrors {
        let (filter, replaced) = try EgressFilters(state: try global.stateDatabase()).set(action, for: domain)
        let what = switch action {
        case .block: "blocked: its requests, and those of every name under it, fail from the next run on"
        case .ignore: "ignored: its requests, and those of every name under it, are no longer recorded"
        case .tracker: "counted as a tracker from the next run on"
        }
        var line = "\(filter.domain) \(what)"
        if let replaced, replaced != action { line += " (it was \(FilterRendering.word(replaced)))" }
        print(line)
    }
}

struct FilterBlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block", abstract: "Refuse compute code's requests to a domain (and the names under it).",
        discussion: "Example:\n  escrow filter block doubleclick.net")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The domain, e.g. doubleclick.net.") var domain: String
    func run() async throws { try await setFilter(.block, domain: domain, global: global) }
}

struct FilterIgnoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ignore", abstract: "Stop recording compute code's requests to a domain (they still go through).",
        discussion: "Example:\n  escrow filter ignore time.example")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The domain, e.g. time.example.") var domain: String
    func run() async throws { try await setFilter(.ignore, domain: domain, global: global) }
}

struct FilterTrackerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracker", abstract: "Count a domain as a tracker, besides those of EasyList and EasyPrivacy.",
        discussion: "Example:\n  escrow filter tracker metrics.example")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The domain, e.g. metrics.example.") var domain: String
    func run() async throws { try await setFilter(.tracker, domain: domain, global: global) }
}

struct FilterRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a domain's filter (undo a block, an ignore or a tracker flag).",
        discussion: "Example:\n  escrow filter remove doubleclick.net")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The domain, as `escrow filter list` shows it.") var domain: String
    func run() async throws {
        try await reportingErrors {
            let removed = try EgressFilters(state: try global.stateDatabase()).remove(domain)
            print("\(removed.domain) is no longer \(FilterRendering.word(removed.action))")
        }
    }
}

struct FilterListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the filters.",
        discussion: "Example:\n  escrow filter list --json")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print the filters as a JSON array.") var json = false
    func run() async throws {
        try await reportingErrors {
            let filters = try EgressFilters(state: try global.stateDatabase()).list()
            if json {
                var writer = JSONWriter.forDisplay()
                writer.array(filters) { writer, filter in
                    writer.object { object in
                        object.field("domain", filter.domain)
                        object.field("action", filter.action.rawValue)
                        object.field("addedAt", filter.addedAt)
                    }
                }
                print(writer.text)
            } else if filters.isEmpty {
                print("no filters: every request is recorded and none is blocked; add one with `escrow filter block DOMAIN`")
            } else {
                print(TextTable.render(header: ["DOMAIN", "FILTER", "SINCE (UTC)"],
                                       rows: filters.map { [$0.domain, FilterRendering.word($0.action), $0.addedAt] }),
                      terminator: "")
            }
        }
    }
}

enum FilterRendering {
    /// The action as the individual reads it.
    static func word(_ action: FilterAction) -> String {
        switch action {
        case .block: "blocked"
        case .ignore: "ignored"
        case .tracker: "counted as a tracker"
        }
    }
}
