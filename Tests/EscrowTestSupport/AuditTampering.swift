import EscrowHost
import EscrowStore
import Foundation

/// Rewrites an escrow home's audit log the way an attacker who can write the home can: with the
/// escrow's own library (the canonical encoding is public), the append-only triggers dropped,
/// every hash from the edited entry on recomputed and the head record reset, so the chain checks
/// out on its own.
public enum AuditTampering {
    /// Sets entry `seq`'s reason to `reason` and recomputes the chain from there to the newest
    /// entry, and the head record.
    public static func rewrite(home url: URL, entry seq: Int, reason: String) throws {
        let state = try StateDatabase(home: EscrowHome(url: url))
        let entries = try AuditLog(state: state).entries().filter { $0.seq >= seq }
        try state.write { database in
            try database.execute("""
                DROP TRIGGER IF EXISTS AuditEntry_append_only_update;
                DROP TRIGGER IF EXISTS AuditEntry_append_only_delete;
                DROP TRIGGER IF EXISTS AuditEntry_delete_through_checkpoint;
                """)
            var prevHash = entries.first?.prevHash ?? String(repeating: "0", count: 64)
            for entry in entries {
                var facts = entry.facts
                if entry.seq == seq { facts.reason = reason }
                let hash = AuditEntry.computeHash(seq: entry.seq, time: entry.time, facts: facts, prevHash: prevHash)
                try database.prepare("UPDATE AuditEntry SET reason = ?, prevHash = ?, hash = ? WHERE seq = ?")
                    .run([.nullable(facts.reason), .text(prevHash), .text(hash), .integer(Int64(entry.seq))])
                prevHash = hash
            }
            try database.prepare("UPDATE AuditHead SET hash = ? WHERE id = 1").run([.text(prevHash)])
        }
    }
}
