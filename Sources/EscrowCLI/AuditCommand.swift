import ArgumentParser

struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "The log of every run attempt, allowed or not, and its check.",
        discussion: """
            Each entry carries the hash of the one before, so `escrow audit verify`
            detects edited, deleted, reordered or missing entries; with a witness
            (`escrow audit witness add SERVER`) also a log truncated or rewritten
            wholesale. Without a subcommand, `escrow audit` lists the entries.

            Example:
              escrow audit --app org.wikipedia --since 2026-01-01
              escrow audit show 12
              escrow audit verify
              escrow audit head --json > ~/elsewhere/escrow-head.json
            """,
        subcommands: [AuditListCommand.self, AuditShowCommand.self, AuditVerifyCommand.self, AuditHeadCommand.self,
                      AuditWitnessCommand.self],
        defaultSubcommand: AuditListCommand.self
    )
}
