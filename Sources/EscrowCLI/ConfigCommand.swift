import ArgumentParser

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Read or change a setting of this escrow home.",
        discussion: """
            audit.durability: how safe each audit entry is once a run returns.
              process-crash  the default: survives a crash or kill of the process
              power-loss     also survives power loss: an fsync per commit, about
                             60–130 µs more per run on these machines

            retention-days: delete audit entries (and the requests recorded with them)
              this many days after they were written; unset: keep everything.
            tracker-lists: the adblock filter lists tracker domains come from
              (FILE:FILE…; Debian's EasyList and EasyPrivacy by default).
            network.resolve: HOST=ADDRESS entries, separated by spaces: compute
              functions reach HOST at ADDRESS instead of looking it up.

            Examples:
              escrow config get audit.durability
              escrow config set audit.durability power-loss
              escrow config set retention-days 30
              escrow config unset retention-days
            """,
        subcommands: [ConfigGetCommand.self, ConfigSetCommand.self, ConfigUnsetCommand.self]
    )
}
