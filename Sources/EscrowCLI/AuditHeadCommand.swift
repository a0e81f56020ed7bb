import ArgumentParser
import EscrowCore
import EscrowHost
import EscrowWire
import EscrowStore
import Foundation

struct AuditHeadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "head",
        abstract: "Print the audit log's head, signed, to keep somewhere outside the escrow home.",
        discussion: """
            The head is the newest entry's number and hash, the time, and this escrow's
            audit key (<home>/audit-key, made on first use) with its signature. Keep the
            --json form elsewhere (another machine, a printout); later
            `escrow audit verify --head FILE` checks the log still holds that entry with
            that hash, which a rewrite of the log cannot fake.

            Example:
              escrow audit head
              escrow audit head --json > ~/elsewhere/escrow-head.json
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the head as a JSON object (what `escrow audit verify --head` reads).")
    var json = false

    func run() async throws {
        try await reportingErrors {
            guard let head = try AuditLog(state: try global.stateDatabase()).signedHead() else {
                throw CLIError("the audit log is empty: there is no head yet (every run attempt adds an entry)")
            }
            if json {
                print(Self.json(head))
            } else {
                for (name, value) in [("entry", "\(head.seq)"), ("hash", head.entryHash), ("time (UTC)", head.time),
                                      ("audit key", Hex.encode(head.hostKey)), ("signature", Hex.encode(head.hostSignature))] {
                    print(name.padding(toLength: 12, withPad: " ", startingAt: 0) + value)
                }
            }
        }
    }

    /// `{"seq", "hash", "time", "key", "signature"}`, keys and signature in hex.
    static func json(_ head: SignedAuditHead) -> String {
        var writer = JSONWriter()
        writer.object { object in
            object.field("seq", int: head.seq)
            object.field("hash", head.entryHash)
            object.field("time", head.time)
            object.field("key", Hex.encode(head.hostKey))
            object.field("signature", Hex.encode(head.hostSignature))
        }
        return writer.text
    }
}
