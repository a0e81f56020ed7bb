import EscrowCore
import EscrowEgress

/// What a run attempt came to.
public enum AuditOutcome: String, Sendable, Hashable, CaseIterable, Codable {
    /// compute() ran and its output went to the app.
    case ok
    /// The flow awaits the individual's decision; nothing ran.
    case pending
    /// The individual denied the flow; nothing ran.
    case denied
    /// The flow's approval was revoked; nothing ran.
    case revoked
    /// Something failed (bad SQL, limits, the function, the audit itself…); no output went out.
    case failed
}

/// The facts of one run attempt, before the log numbers and chains them.
public struct AuditDraft: Sendable, Hashable {
    public var flowID: String?
    public var app: String
    public var purpose: String
    public var functionID: String
    public var outcome: AuditOutcome
    public var reason: String?
    /// `Table.column` read by the access SQL (empty when it never got that far).
    public var reads: [String] = []
    public var rowsRead = 0
    public var bytesToCompute = 0
    public var destination: String
    public var bytesSent = 0
    public var bytesReceived = 0
    public var serverLatencyMs: Double?
    /// The part of `serverLatencyMs` the server spent running the function, as it reported; the
    /// rest is transfer (encoding, TLS, the network). Nil on the device.
    public var serverComputeMs: Double?
    public var durationMs: Double = 0
    /// SHA-256 (hex) of the output returned to the app.
    public var outputSHA256: String?
    /// The process that asked (`uid N pid M`), when the daemon knows it.
    public var caller: String?
    /// Every outbound request the compute function made, in the order sent (those to domains the
    /// individual ignores left out). Stored beside the entry and covered by its hash.
    public var egress: [EgressRecord] = []
    /// What the run's access saw of the location, when its SQL read any (nil otherwise).
    public var location: AuditLocation?
    /// The SHA-256 of the compute module the run ran, when it ran one (nil: a built-in function).
    public var moduleSHA256: String?
    /// Every address of its compute server a remote run tried, in order, and what came of each
    /// (empty for a run on the device).
    public var attempts: [ServerAttempt] = []

    public init(flowID: String?, app: String, purpose: String, functionID: String, outcome: AuditOutcome,
                reason: String? = nil, destination: String) {
        self.flowID = flowID
        self.app = app
        self.purpose = purpose
        self.functionID = functionID
        self.outcome = outcome
        self.reason = reason
        self.destination = destination
    }
}

/// What a run's access saw of the individual's location: the accuracy applied, the mask's outer
/// radius, the people the masked area is estimated to hold, and how many times the function ran.
public struct AuditLocation: Sendable, Hashable {
    /// The accuracy applied, as `LocationAccuracy` spells it (`exact`, `1km`, `city`…).
    public var accuracy: String
    /// The mask's outer radius at the individual's latest location, in meters (nil for exact and
    /// for city, region and country).
    public var radius: Double?
    /// How many people the masked area is estimated to hold (a city's, region's or country's
    /// population; for a radius, the estimate at the latest location), nil for exact.
    public var k: Int?
    /// How many times the function ran: 1, or k when k−1 runs on dummy inputs hid the real one.
    public var runs: Int

    public init(accuracy: String, radius: Double? = nil, k: Int? = nil, runs: Int = 1) {
        self.accuracy = accuracy
        self.radius = radius
        self.k = k
        self.runs = runs
    }
}

/// One entry of the audit log, as stored: the draft's facts, its place in the log, its time and
/// the hashes that chain it to the entry before.
public struct AuditEntry: Sendable, Hashable {
    /// 1, 2, 3, … in the order the entries were written.
    public let seq: Int
    /// ISO 8601 UTC.
    public let time: String
    public internal(set) var facts: AuditDraft
    /// `hash` of the entry before (64 zeros for the first).
    public let prevHash: String
    /// SHA-256 over the canonical encoding of this entry.
    public let hash: String

    /// The hash an entry with these contents must have (the canonical encoding of docs/AUDIT.md;
    /// anyone holding the entries can recompute it, which is why a witness is needed to detect a
    /// recomputed chain).
    public static func computeHash(seq: Int, time: String, facts: AuditDraft, prevHash: String) -> String {
        var encoder = CanonicalEncoder()
        encoder.append("escrow.audit.v1")
        encoder.append(Int64(seq))
        encoder.append(time)
        encoder.append(facts.flowID)
        encoder.append(facts.app)
        encoder.append(facts.purpose)
        encoder.append(facts.functionID)
        encoder.append(facts.outcome.rawValue)
        encoder.append(facts.reason)
        encoder.append(JSONStrings.encode(facts.reads))
        encoder.append(Int64(facts.rowsRead))
        encoder.append(Int64(facts.bytesToCompute))
        encoder.append(facts.destination)
        encoder.append(Int64(facts.bytesSent))
        encoder.append(Int64(facts.bytesReceived))
        encoder.append(facts.serverLatencyMs)
        encoder.append(facts.durationMs)
        encoder.append(facts.outputSHA256)
        encoder.append(prevHash)
        // Added in schema version 4: entries without a caller hash exactly as before.
        if let caller = facts.caller { encoder.append(caller) }
        // Added in schema version 5, the same way (a number's tag differs from a text's).
        if let computeMs = facts.serverComputeMs { encoder.append(computeMs) }
        // Added in schema version 8: entries whose function made no request hash as before.
        if !facts.egress.isEmpty {
            encoder.append("egress")
            encoder.append(Int64(facts.egress.count))
            for record in facts.egress {
                let observation = record.observation
                encoder.append(observation.time)
                encoder.append(observation.host)
                encoder.append(record.domain)
                encoder.append(observation.method)
                encoder.append(Int64(observation.bytesOut))
                encoder.append(Int64(observation.bytesIn))
                encoder.append(observation.status.map(Int64.init))
                encoder.append(Int64(observation.blocked ? 1 : 0))
                encoder.append(record.tracker)
                encoder.append(Int64(observation.sentData ? 1 : 0))
            }
        }
        // Added in schema version 9: entries of runs that read no location hash as before.
        if let location = facts.location {
            encoder.append("location")
            encoder.append(location.accuracy)
            encoder.append(location.radius)
            encoder.append(location.k.map(Int64.init))
            encoder.append(Int64(location.runs))
        }
        // Added in schema version 10: entries of built-in functions' runs hash as before.
        if let module = facts.moduleSHA256 {
            encoder.append("module")
            encoder.append(module)
        }
        // Added in schema version 11: entries of runs on the device hash as before.
        if !facts.attempts.isEmpty {
            encoder.append("attempts")
            encoder.append(Int64(facts.attempts.count))
            for attempt in facts.attempts {
                encoder.append(attempt.address)
                encoder.append(attempt.outcome.rawValue)
                encoder.append(attempt.error)
            }
        }
        return encoder.sha256()
    }
}

/// The result of checking the audit log's chain.
public enum AuditVerification: Sendable, Equatable {
    /// Every entry is present, in order, unaltered.
    case intact(entries: Int)
    /// The first entry found broken, and how.
    case broken(seq: Int, reason: String)
}

/// Which entries to list.
public struct AuditFilter: Sendable, Equatable {
    public var app: String?
    /// A flow id or its prefix.
    public var flow: String?
    /// Entries at or after this time (seconds since 1970).
    public var since: Double?
    public var outcome: AuditOutcome?

    public init(app: String? = nil, flow: String? = nil, since: Double? = nil, outcome: AuditOutcome? = nil) {
        self.app = app
        self.flow = flow
        self.since = since
        self.outcome = outcome
    }
}

/// The audit entry could not be written; the run's output is withheld.
///
/// Two values are equal when their underlying errors read the same (errors are not `Equatable`).
public struct AuditError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the entry could not be committed (a `StoreError` from the escrow's database).
    public let underlying: any Error

    public init(_ underlying: any Error) {
        self.underlying = underlying
    }

    public var description: String {
        "the audit entry could not be written, so the output was withheld: \(underlying)"
    }

    public static func == (lhs: AuditError, rhs: AuditError) -> Bool {
        "\(lhs.underlying)" == "\(rhs.underlying)"
    }
}
