import EscrowCore
import EscrowEgress
import EscrowReports
import EscrowStore

/// What compute code contacted, read back from the audit log for the reports, the export and
/// `flows show`: the recorded requests with the run each belongs to.
///
/// Thread safety: a value over the shared state database.
public struct EgressLog: Sendable {
    public let state: StateDatabase

    public init(state: StateDatabase) {
        self.state = state
    }

    /// Every recorded request (of `app` only, when given), oldest first.
    public func requests(app: String? = nil) throws -> [RecordedRequest] {
        try state.read { database in
            let query = try database.prepare("""
                SELECT a.app, a.flowId, \(EgressRows.columns(of: "e"))
                FROM EgressRequest e JOIN AuditEntry a ON a.seq = e.auditSeq
                WHERE ?1 IS NULL OR a.app = ?1
                ORDER BY e.auditSeq, e.position
                """)
            try query.bind(.nullable(app), at: 1)
            var requests: [RecordedRequest] = []
            while try query.step() {
                requests.append(RecordedRequest(app: query.string(0) ?? "", flowID: query.string(1) ?? "",
                                                run: Int(query.int64(2)), record: EgressRows.record(query, offset: 2)))
            }
            return requests
        }
    }

    /// Every run whose compute step ran or was tried: the audit entries of identified flows that
    /// were allowed to run (`ok`, or `failed` after the decision), oldest first.
    public func runs(app: String? = nil) throws -> [RecordedRun] {
        try state.read { database in
            let query = try database.prepare("""
                SELECT app, flowId, seq, time, durationMs FROM AuditEntry
                WHERE flowId IS NOT NULL AND outcome IN ('ok', 'failed') AND (?1 IS NULL OR app = ?1)
                ORDER BY seq
                """)
            try query.bind(.nullable(app), at: 1)
            var runs: [RecordedRun] = []
            while try query.step() {
                let time = Timestamp.parse(query.string(3) ?? "").map { Int64($0.rounded(.down)) } ?? 0
                runs.append(RecordedRun(app: query.string(0) ?? "", flowID: query.string(1) ?? "", seq: Int(query.int64(2)),
                                        time: time, durationMs: query.double(4)))
            }
            return runs
        }
    }

    /// The hosts a flow's code contacted so far, most requested first.
    public func hosts(ofFlow flowID: String) throws -> [ContactedHost] {
        try state.read { database in
            let query = try database.prepare("""
                SELECT e.host, e.domain, max(e.tracker), count(*), sum(e.blocked), sum(e.sentData),
                       group_concat(DISTINCT e.auditSeq), min(e.time), max(e.time)
                FROM EgressRequest e JOIN AuditEntry a ON a.seq = e.auditSeq
                WHERE a.flowId = ?1
                GROUP BY e.host ORDER BY count(*) DESC, e.host
                """)
            try query.bind(.text(flowID), at: 1)
            var hosts: [ContactedHost] = []
            while try query.step() {
                let runs = (query.string(6) ?? "").split(separator: ",").compactMap { Int($0) }.sorted()
                hosts.append(ContactedHost(host: query.string(0) ?? "", domain: query.string(1) ?? "", tracker: query.string(2),
                                           requests: Int(query.int64(3)), blocked: Int(query.int64(4)),
                                           sentData: Int(query.int64(5)), runs: runs,
                                           first: query.int64(7), last: query.int64(8)))
            }
            return hosts
        }
    }
}

/// One host a flow's code contacted, over all its runs kept in the log.
public struct ContactedHost: Sendable, Hashable {
    public let host: String
    /// Its registrable domain.
    public let domain: String
    /// The tracker-list domain it falls under, nil when none.
    public let tracker: String?
    public let requests: Int
    /// Of those, refused because the individual blocks the domain.
    public let blocked: Int
    /// Of those, carrying a value of the data the flow read.
    public let sentData: Int
    /// The audit entries (runs) that contacted it.
    public let runs: [Int]
    /// The first and last request, whole seconds since 1970.
    public let first: Int64
    public let last: Int64
}
