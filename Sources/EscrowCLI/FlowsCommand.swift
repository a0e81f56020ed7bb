import ArgumentParser

struct FlowsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flows",
        abstract: "The dataflows apps have asked for, and your decision on each.",
        discussion: """
            A dataflow is one app's request: its purpose, the access SQL, the compute
            function (by code digest) and where it runs. Nothing runs until you approve it.
            Without a subcommand, `escrow flows` lists them.

            Example:
              escrow flows --status pending
              escrow flows show 1a2b3c4d
            """,
        subcommands: [FlowsListCommand.self, FlowsShowCommand.self],
        defaultSubcommand: FlowsListCommand.self
    )
}
