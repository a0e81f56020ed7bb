import EscrowCore
import EscrowStore
import Foundation
import Synchronization

/// One address a remote run tried, and what came of it. A run's attempts are kept in its audit
/// entry, in the order they were made, and covered by the entry's hash.
public struct ServerAttempt: Sendable, Hashable, Codable {
    /// What an attempt came to. Only `unanswered` leaves it open whether the function ran.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// The server answered the call (with the output or with its own error).
        case answered
        /// No connection could be made (refused, unreachable, TLS, greeting): nothing was sent.
        case unreachable
        /// The connection broke before the call was written to it: nothing was sent.
        case notSent = "not-sent"
        /// The server took the call and said it would not run it (shutting down, at its limit).
        case declined
        /// The call was sent and no answer came (the connection closed, the deadline passed): the
        /// function may have run there, so the call is not sent again — unless the function can
        /// contact nothing and the connection broke under it (then no one could tell).
        case unanswered

        /// Whether the function certainly did not run there.
        public var sentNothing: Bool { self != .answered && self != .unanswered }
    }

    /// `host:port`, as registered.
    public var address: String
    public var outcome: Outcome
    /// Why it failed, in the escrow's words (nil when answered).
    public var error: String?

    public init(address: String, outcome: Outcome, error: String? = nil) {
        self.address = address
        self.outcome = outcome
        self.error = error
    }
}

extension [ServerAttempt] {
    /// The JSON array the audit log stores (`attempts` column).
    var stored: String {
        var writer = JSONWriter()
        writer.array(self) { writer, attempt in
            writer.object { object in
                object.field("address", attempt.address)
                object.field("outcome", attempt.outcome.rawValue)
                if let error = attempt.error { object.field("error", error) }
            }
        }
        return writer.text
    }

    /// The attempts stored as `text` for audit entry `seq`.
    ///
    /// - Throws: `StoreError.unreadableValue` when `text` is not what the escrow writes.
    static func decodeStored(_ text: String, seq: Int) throws(StoreError) -> [ServerAttempt] {
        do {
            return try JSONDecoder().decode([ServerAttempt].self, from: Data(text.utf8))
        } catch {
            throw .unreadableValue(table: "audit entry", record: String(seq), column: "attempts", database: "escrow.sqlite",
                                   problem: "not a JSON array of attempts")
        }
    }
}

/// The attempts of one run, as the remote calls make them (a k-anonymous run makes several
/// calls, possibly at the same time).
final class ServerAttemptLog: Sendable {
    private let attempts = Mutex<[ServerAttempt]>([])

    func add(_ attempt: ServerAttempt) {
        attempts.withLock { $0.append(attempt) }
    }

    var all: [ServerAttempt] { attempts.withLock { $0 } }
}
