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

            Example:
              escrow config get audit.durability
              escrow config set audit.durability power-loss
            """,
        subcommands: [ConfigGetCommand.self, ConfigSetCommand.self]
    )
}
