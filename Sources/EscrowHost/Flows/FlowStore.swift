import EscrowCore
import EscrowStore
import Foundation

/// The individual's dataflows and decisions, in the escrow's own database.
///
/// `decide(_:…)` is the run pipeline's decision step: it records a new flow as pending and tells
/// whether the flow may run now. An approval `once` is consumed by exactly one run, even when many
/// runs of the flow start at the same time (in one process or several): the check and the
/// consumption are one write transaction.
///
/// Thread safety: may be shared; every operation is one transaction of `StateDatabase`.
public struct FlowStore: Sendable {
    public let state: StateDatabase

    public init(state: StateDatabase) {
        self.state = state
    }

    /// The outcome of the decision step for one run.
    public enum Verdict: Sendable, Equatable {
        /// The flow may run, with the location accuracy its runs get.
        case allowed(flow: String, accuracy: LocationAccuracy)
        /// The flow may not run now, with the reason the app gets.
        case refused(DecisionError)
    }

    /// The decision step: finds (or records, as pending) the flow, and says whether it may run.
    /// Consumes a `once` approval; an expired `until` approval turns the flow back to pending.
    ///
    /// - Parameter program: the program that asked (runs through the daemon). When its digest
    ///   differs from the one the flow's current decision was made for, the new digest is
    ///   recorded in the flow's history and an approval turns back to pending: the individual
    ///   approved another executable.
    public func decide(_ identity: FlowIdentity, accessSQL: String, lineage: Lineage,
                       program: CallerProgram? = nil) throws -> Verdict {
        let key = identity.key
        // The common case — an approval in force that nothing needs to change — only reads.
        let standing = try state.read { database in try Self.flow(key: key, in: database) }
        if let standing, standing.status == .approved, program == nil || standing.programDigest == program?.sha256 {
            switch standing.approval {
            case .always?: return .allowed(flow: standing.id, accuracy: standing.locationAccuracy)
            case .until(let until)? where state.clock.secondsSince1970 < until:
                return .allowed(flow: standing.id, accuracy: standing.locationAccuracy)
            default: break
            }
        }
        return try state.write { database in
            let now = state.clock.now()
            guard let current = try Self.flow(key: key, in: database) else {
                let id = try Self.insertPending(identity, key: key, accessSQL: accessSQL, lineage: lineage,
                                                 program: program, now: now.text, in: database)
                return .refused(.awaitingApproval(flow: id))
            }
            if let program, current.programDigest != program.sha256 {
                try database.prepare("UPDATE Flow SET programDigest = ? WHERE id = ?").run([.text(program.sha256), .text(current.id)])
                let reason = "the program at \(program.path) is another executable now (SHA-256 "
                    + "\(current.programDigest.map { String($0.prefix(12)) } ?? "unknown")… → \(program.sha256.prefix(12))…)"
                if current.status == .approved {
                    try Self.setStatus(current.id, .pending, approval: nil, until: nil, reason: nil, now: now.text,
                                       history: "program changed: pending", historyReason: reason, in: database)
                    return .refused(.awaitingApproval(flow: current.id))
                }
                try database.prepare("INSERT INTO Decision (flowId, time, decision, reason) VALUES (?, ?, 'program changed', ?)")
                    .run([.text(current.id), .text(now.text), .text(reason)])
            }
            switch (current.status, current.approval) {
            case (.approved, .always?):
                return .allowed(flow: current.id, accuracy: current.locationAccuracy)
            case (.approved, .until(let until)?):
                if now.seconds < until { return .allowed(flow: current.id, accuracy: current.locationAccuracy) }
                try Self.setStatus(current.id, .pending, approval: nil, until: nil, reason: nil, now: now.text,
                                   history: "expired", in: database)
                return .refused(.awaitingApproval(flow: current.id))
            case (.approved, .once?):
                try Self.setStatus(current.id, .pending, approval: nil, until: nil, reason: nil, now: now.text,
                                   history: "once used", in: database)
                return .allowed(flow: current.id, accuracy: current.locationAccuracy)
            case (.denied, _):
                return .refused(.denied(flow: current.id, reason: current.reason))
            case (.revoked, _):
                return .refused(.revoked(flow: current.id))
            default:
                return .refused(.awaitingApproval(flow: current.id))
            }
        }
    }

    // MARK: The individual's decisions

    /// Approves a flow (from any status), optionally choosing the location accuracy its runs get.
    ///
    /// - Parameters:
    ///   - approval: how long the approval lasts; nil keeps the approval of a flow approved already
    ///     (to change only its accuracy) and approves any other `always`.
    ///   - accuracy: the individual's choice; nil keeps the choice made before (none: what the app
    ///     asked for, else exact). Choosing lower than the app asked is a decision on the same flow.
    @discardableResult
    public func approve(_ id: String, _ approval: Approval?, accuracy: LocationAccuracy? = nil) throws -> FlowRecord {
        if case .until(let until)? = approval, until <= state.clock.secondsSince1970 {
            throw FlowError.approvalInThePast(Timestamp.format(secondsSince1970: until))
        }
        return try state.write { database in
            let flow = try Self.resolve(id, in: database)
            let kept = flow.status == .approved ? flow.approval : nil
            let applied = approval ?? kept ?? .always
            var until: String?
            if case .until(let seconds) = applied { until = Timestamp.format(secondsSince1970: seconds) }
            var history = "approve \(applied.description)"
            if let accuracy {
                try database.prepare("UPDATE Flow SET locationAccuracy = ? WHERE id = ?")
                    .run([.text(accuracy.description), .text(flow.id)])
                history += ", location \(accuracy.description)"
            }
            try Self.setStatus(flow.id, .approved, approval: applied.kind, until: until, reason: nil,
                               now: state.clock.now().text, history: history, in: database)
            return try Self.resolve(flow.id, in: database)
        }
    }

    /// Denies a flow (from any status), with an optional reason shown to the app.
    @discardableResult
    public func deny(_ id: String, reason: String?) throws -> FlowRecord {
        try state.write { database in
            let flow = try Self.resolve(id, in: database)
            try Self.setStatus(flow.id, .denied, approval: nil, until: nil, reason: reason,
                               now: state.clock.now().text, history: "deny", in: database)
            return try Self.resolve(flow.id, in: database)
        }
    }

    /// Withdraws an approval; the next run of the flow is refused.
    @discardableResult
    public func revoke(_ id: String) throws -> FlowRecord {
        try state.write { database in
            let flow = try Self.resolve(id, in: database)
            guard flow.status == .approved else { throw FlowError.notApproved(flow: flow.id, status: flow.status) }
            try Self.setStatus(flow.id, .revoked, approval: nil, until: nil, reason: nil,
                               now: state.clock.now().text, history: "revoke", in: database)
            return try Self.resolve(flow.id, in: database)
        }
    }

    // MARK: Reading

    /// Flows, newest first, optionally only those with a status or of an app.
    public func list(status: FlowStatus? = nil, app: String? = nil) throws -> [FlowRecord] {
        try state.read { database in
            let query = try database.prepare("""
                SELECT \(Self.columns) FROM Flow
                WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR app = ?2)
                ORDER BY createdAt DESC, id
                """)
            try query.bind(.nullable(status?.rawValue), at: 1)
            try query.bind(.nullable(app), at: 2)
            var flows: [FlowRecord] = []
            while try query.step() { flows.append(try Self.record(query)) }
            return flows
        }
    }

    /// The flow with this id (or unambiguous id prefix).
    public func flow(_ id: String) throws -> FlowRecord {
        try state.read { database in try Self.resolve(id, in: database) }
    }

    /// The flow's decisions, oldest first.
    public func history(_ id: String) throws -> [DecisionRecord] {
        try state.read { database in
            let query = try database.prepare("SELECT time, decision, reason FROM Decision WHERE flowId = ? ORDER BY seq")
            try query.bind(.text(id), at: 1)
            var records: [DecisionRecord] = []
            while try query.step() {
                records.append(DecisionRecord(time: query.string(0) ?? "", decision: query.string(1) ?? "", reason: query.string(2)))
            }
            return records
        }
    }

    // MARK: Rows

    private static let columns = """
        id, key, app, purpose, accessSQL, normalizedSQL, functionId, functionVersion, functionDigest, parameters,
        destination, reads, status, approval, approvedUntil, reason, createdAt, decidedAt, programPath, programDigest,
        requestedAccuracy, locationAccuracy, moduleBytes
        """

    /// - Throws: `StoreError.unreadableValue` when a stored JSON value cannot be read back.
    private static func record(_ row: Statement) throws(StoreError) -> FlowRecord {
        let id = row.string(0) ?? ""
        let approvalKind = row.string(13)
        let approval: Approval? = switch approvalKind {
        case "once": .once
        case "always": .always
        case "until": row.string(14).flatMap(Timestamp.parse).map(Approval.until)
        default: nil
        }
        return FlowRecord(
            id: id, key: row.string(1) ?? "", app: row.string(2) ?? "", purpose: row.string(3) ?? "",
            accessSQL: row.string(4) ?? "", normalizedSQL: row.string(5) ?? "",
            function: FunctionDescriptor(id: row.string(6) ?? "", version: Int(row.int64(7)), codeDigest: row.string(8) ?? "", summary: ""),
            parametersJSON: row.string(9) ?? "{}", destination: row.string(10) ?? "",
            reads: try JSONStrings.decode(row.string(11), table: "dataflow", record: id, column: "reads"),
            status: FlowStatus(rawValue: row.string(12) ?? "") ?? .pending, approval: approval,
            reason: row.string(15), createdAt: row.string(16) ?? "", decidedAt: row.string(17),
            programPath: row.string(18), programDigest: row.string(19),
            requestedAccuracy: try accuracy(row.string(20), flow: id, column: "requestedAccuracy"),
            chosenAccuracy: try accuracy(row.string(21), flow: id, column: "locationAccuracy"),
            moduleBytes: row.isNull(22) ? nil : Int(row.int64(22))
        )
    }

    /// A stored accuracy read back; one the escrow did not write is an error, never exact.
    private static func accuracy(_ text: String?, flow: String, column: String) throws(StoreError) -> LocationAccuracy? {
        guard let text else { return nil }
        do {
            return try LocationAccuracy(parsing: text)
        } catch {
            throw .unreadableValue(table: "dataflow", record: flow, column: column, database: "escrow.sqlite",
                                   problem: error.description)
        }
    }

    private static func flow(key: String, in database: Database) throws -> FlowRecord? {
        let query = try database.cached("SELECT \(columns) FROM Flow WHERE key = ?")
        defer { query.reset() }
        try query.bind(.text(key), at: 1)
        return try query.step() ? try record(query) : nil
    }

    /// The flow whose id is `id`, or starts with it when that is unambiguous.
    static func resolve(_ id: String, in database: Database) throws -> FlowRecord {
        let exact = try database.prepare("SELECT \(columns) FROM Flow WHERE id = ?")
        try exact.bind(.text(id), at: 1)
        if try exact.step() { return try record(exact) }
        guard !id.isEmpty else { throw FlowError.unknownFlow(id) }
        let prefix = try database.prepare("SELECT \(columns) FROM Flow WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id LIMIT 5")
        try prefix.bind(.text(id), at: 1)
        var matches: [FlowRecord] = []
        while try prefix.step() { matches.append(try record(prefix)) }
        guard let first = matches.first else { throw FlowError.unknownFlow(id) }
        guard matches.count == 1 else { throw FlowError.ambiguousFlow(id, matches: matches.map(\.id)) }
        return first
    }

    private static func insertPending(_ identity: FlowIdentity, key: String, accessSQL: String, lineage: Lineage,
                                      program: CallerProgram?, now: String, in database: Database) throws -> String {
        let insert = try database.prepare("""
            INSERT OR IGNORE INTO Flow (id, key, app, purpose, accessSQL, normalizedSQL, functionId, functionVersion,
                functionDigest, parameters, destination, reads, status, createdAt, programPath, programDigest,
                requestedAccuracy, moduleBytes)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)
            """)
        // The short id is the key's first 8 hex characters, longer in the unlikely case of a clash.
        for length in stride(from: 8, through: 64, by: 4) {
            let id = String(key.prefix(length))
            try insert.run([
                .text(id), .text(key), .text(identity.app), .text(identity.purpose), .text(accessSQL),
                .text(identity.normalizedSQL), .text(identity.function.id), .integer(Int64(identity.function.version)),
                .text(identity.function.codeDigest), .text(identity.parametersJSON), .text(identity.destination.description),
                .text(JSONStrings.encode(lineage.sorted.map(\.description))), .text(now),
                .nullable(program?.path), .nullable(program?.sha256), .nullable(identity.locationAccuracy?.description),
                identity.moduleBytes.map { .integer(Int64($0)) },
            ])
            if database.changes == 1 {
                try database.prepare("INSERT INTO Decision (flowId, time, decision) VALUES (?, ?, 'new: pending')")
                    .run([.text(id), .text(now)])
                return id
            }
        }
        throw StoreError(message: "cannot record dataflow \(key): no free short id")
    }

    /// Sets a flow's decision and adds it to the history (with `historyReason`, else `reason`).
    private static func setStatus(_ id: String, _ status: FlowStatus, approval: String?, until: String?, reason: String?,
                                  now: String, history: String, historyReason: String? = nil, in database: Database) throws {
        try database.prepare("""
            UPDATE Flow SET status = ?, approval = ?, approvedUntil = ?, reason = ?, decidedAt = ? WHERE id = ?
            """).run([.text(status.rawValue), .nullable(approval), .nullable(until), .nullable(reason), .text(now), .text(id)])
        try database.prepare("INSERT INTO Decision (flowId, time, decision, reason) VALUES (?, ?, ?, ?)")
            .run([.text(id), .text(now), .text(history), .nullable(historyReason ?? reason)])
    }
}

/// JSON arrays of strings as the state database stores them (`reads`, server addresses).
enum JSONStrings {
    static func encode(_ values: [String]) -> String {
        var writer = JSONWriter()
        writer.array(values) { writer, value in writer.string(value) }
        return writer.text
    }

    /// The array stored as `text` in `column` of `record` (a row of `table`, as a person would
    /// name it).
    ///
    /// - Throws: `StoreError.unreadableValue` when `text` is missing or not a JSON array of
    ///   strings: a value the escrow did not write is never read as an empty list.
    static func decode(_ text: String?, table: String, record: String, column: String) throws(StoreError) -> [String] {
        guard let text else {
            throw .unreadableValue(table: table, record: record, column: column, database: "escrow.sqlite", problem: "missing")
        }
        do {
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch {
            throw .unreadableValue(table: table, record: record, column: column, database: "escrow.sqlite",
                                   problem: "not a JSON array of strings (\(problem(error)))")
        }
    }

    /// What JSONDecoder found wrong, in its own words without the coding path's type names.
    private static func problem(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        return switch decoding {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
             .keyNotFound(_, let context):
            context.debugDescription
        @unknown default:
            "\(decoding)"
        }
    }
}
