import ArgumentParser
import EscrowCore
import EscrowHost
import EscrowWire
import EscrowStore
import Foundation

struct AuditVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that no audit entry was edited, deleted, reordered or cut off.",
        discussion: """
            Checks the chain of entries and the retention checkpoint (an entry deleted
            sooner than retention-days allowed, or with none in force, was deleted by
            hand), then the log against every head its witnesses
            countersigned (kept here, and asked of each witness), and against a head kept
            elsewhere (--head): the entry a head names must be there with that hash, so a
            log truncated or rewritten before it is detected even when its chain was
            recomputed. Says how far the log is witnessed, and what it cannot detect when
            it has no witness.

            Exit status 0 when the log is intact (witnessed or not), 1 when it is not (each
            problem is named on standard error).

            Example:
              escrow audit verify
              escrow audit verify --head ~/elsewhere/escrow-head.json
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("A head kept elsewhere, from `escrow audit head --json`: the file, or its text.", valueName: "FILE|JSON"))
    var head: String?

    @Option(help: ArgumentHelp("Seconds to wait for each witness.", valueName: "S"))
    var timeout = 10

    @Flag(help: "Print the result as a JSON object (on standard output, also when the log is broken).")
    var json = false

    func validate() throws {
        guard timeout >= 1 else { throw ValidationError("--timeout must be at least 1 second") }
    }

    func run() async throws {
        try await reportingErrors {
            let state = try global.stateDatabase()
            let audit = AuditLog(state: state)
            let kept = try head.map(Self.keptHead)
            var problems: [String] = []
            var report: [String] = []
            switch try audit.verify() {
            case .intact(let entries):
                report.append("audit log intact: \(PlainWords.count(entries, "entry", plural: "entries"))")
                if let checkpoint = try audit.checkpoint() {
                    report.append("entries 1…\(checkpoint.seq) were deleted by the retention setting (the last of them written "
                        + "\(PlainWords.time(checkpoint.time)) UTC, deleted \(PlainWords.time(checkpoint.deletedAt)) UTC); "
                        + "the chain is checked from its hash on")
                }
            case .broken(let seq, let reason):
                problems.append("audit log broken at entry \(seq): \(reason)")
            }
            let witnessing = AuditWitnessing(audit: audit, servers: ServerRegistry(state: state), logger: global.logger())
            let witnesses = try witnessing.witnesses()
            let check = try await witnessing.check(timeout: .seconds(timeout))
            problems += check.contradictions.map { "audit log does not match its witness: \($0)" }
            if let kept {
                if let problem = try Self.contradiction(kept, in: audit) {
                    problems.append("audit log does not match the head kept elsewhere: \(problem)")
                } else if try audit.entry(kept.seq) == nil {
                    report.append("the head kept elsewhere (entry \(kept.seq), signed at \(kept.time)) names an entry the retention "
                        + "setting deleted; the log goes on from its checkpoint: keep a newer head")
                } else {
                    report.append("matches the head kept elsewhere: entry \(kept.seq), signed at \(kept.time)")
                }
            }
            report += Self.witnessReport(check, witnessed: !witnesses.isEmpty || check.newest != nil, kept: kept != nil)
            if json { print(Self.json(problems: problems, check: check, kept: kept)) }
            guard problems.isEmpty else {
                for problem in problems { Terminal.standardError.write("escrow: \(problem)\n") }
                throw CLIError("the entries named above cannot be trusted; copy this escrow home aside as evidence before running anything else")
            }
            if !json {
                for line in report { print(line) }
            }
        }
    }

    /// `{"intact", "entries", "problems", "witnessed", "unwitnessedSince", "unreachable",
    /// "keptHead"}` (docs/CLI.md, `audit verify --json`).
    static func json(problems: [String], check: WitnessCheck, kept: SignedAuditHead?) -> String {
        var writer = JSONWriter()
        writer.object { object in
            object.field("intact") { $0.bool(problems.isEmpty) }
            object.field("entries", int: check.lastSeq)
            object.field("problems", strings: problems)
            object.field("witnessed") { writer in
                guard let newest = check.newest else { return writer.null() }
                writer.object { witnessed in
                    witnessed.field("seq", int: newest.head.head.seq)
                    witnessed.field("witness", newest.serverID)
                    witnessed.field("at", newest.head.witnessedAt)
                }
            }
            object.field("unwitnessedSince", int: check.newest?.head.head.seq ?? 0)
            object.field("unreachable") { writer in
                writer.array(check.unreachable) { writer, witness in
                    writer.object { unreachable in
                        unreachable.field("witness", witness.serverID)
                        unreachable.field("reason", witness.reason)
                    }
                }
            }
            object.field("keptHead") { writer in
                if let kept { writer.int(Int64(kept.seq)) } else { writer.null() }
            }
        }
        return writer.text
    }

    /// How far the log is witnessed, in words; without a witness, what the check can and cannot
    /// detect.
    static func witnessReport(_ check: WitnessCheck, witnessed: Bool, kept: Bool) -> [String] {
        var lines: [String] = []
        if let newest = check.newest {
            let seq = newest.head.head.seq
            let line = "witnessed up to entry \(seq) by \(newest.serverID) at \(newest.head.witnessedAt)"
            lines.append(seq < check.lastSeq
                ? line + "; unwitnessed since entry \(seq): " + (seq + 1 == check.lastSeq
                    ? "entry \(check.lastSeq) is not witnessed yet"
                    : "entries \(seq + 1)…\(check.lastSeq) are not witnessed yet")
                : line + "; every entry is witnessed")
        } else if witnessed {
            lines.append("no witness has countersigned this log yet: the log is unwitnessed since entry 0; `escrow audit witness` sends the head now")
        } else if !kept {
            lines.append("""
                no witness: this check detects entries edited, deleted, reordered or appended by hand, and a log cut short, \
                but not a log cut short together with its head record, nor entries edited with the whole chain recomputed: \
                anyone who can write the escrow home can do either. Add a witness (`escrow audit witness add SERVER`), \
                or keep `escrow audit head --json` elsewhere and check with --head.
                """)
        }
        for (server, reason) in check.unreachable {
            lines.append("witness \(server) could not be asked (\(reason)); checked against the head it countersigned that is kept here")
        }
        return lines
    }

    /// The head in `argument`: a file holding `escrow audit head --json`, or that text itself,
    /// checked (its fields and its signature).
    static func keptHead(_ argument: String) throws -> SignedAuditHead {
        let text = FileManager.default.contents(atPath: argument).map { String(decoding: $0, as: UTF8.self) } ?? argument
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              let seq = object["seq"] as? Int, seq > 0, let hash = object["hash"] as? String, let time = object["time"] as? String,
              let key = (object["key"] as? String).flatMap(Hex.decode), let signature = (object["signature"] as? String).flatMap(Hex.decode)
        else {
            throw CLIError("--head: expected a file holding, or the text of, `escrow audit head --json` ({\"seq\", \"hash\", \"time\", \"key\", \"signature\"})")
        }
        var message = Escrow_V1_AuditHead()
        message.seq = UInt64(seq)
        message.entryHash = hash
        message.time = time
        message.hostKey = Data(key)
        message.hostSignature = Data(signature)
        do {
            return try SignedAuditHead(message)
        } catch {
            throw CLIError("--head: \(error)")
        }
    }

    /// Why the log contradicts a head kept elsewhere, or nil when it holds that entry with that
    /// hash, under the same audit key.
    static func contradiction(_ kept: SignedAuditHead, in audit: AuditLog) throws -> String? {
        let key = try audit.signingPublicKey()
        guard key == kept.hostKey else {
            return "the head was signed by audit key \(Hex.encode(kept.hostKey).prefix(16))…, but this escrow's key is now \(Hex.encode(key).prefix(16))…: the key was replaced"
        }
        guard let entry = try audit.entry(kept.seq) else {
            // An entry the retention setting deleted: its hash lives on only in the checkpoint when
            // it was the last one deleted; the chain from the checkpoint on was verified already.
            if let checkpoint = try audit.checkpoint(), kept.seq <= checkpoint.seq {
                if kept.seq == checkpoint.seq, checkpoint.hash != kept.entryHash {
                    return "entry \(kept.seq)'s hash, kept by the retention checkpoint, differs from the head signed at \(kept.time): the log was rewritten"
                }
                return nil
            }
            return "the log ends at entry \(try audit.lastSeq()) but the head signed at \(kept.time) names entry \(kept.seq): entries were removed (the log was truncated)"
        }
        guard entry.hash == kept.entryHash else {
            return "entry \(kept.seq)'s hash differs from the head signed at \(kept.time): the log was rewritten"
        }
        return nil
    }
}
