import CSQLite
import EscrowCore
#if canImport(Glibc)
import Glibc
#endif

/// The guard's per-connection state, reached from SQLite's C callbacks through their context
/// pointer: the policy, the reads recorded while a statement is prepared (its lineage), the first
/// refusal, and the running query's instruction count and deadline.
///
/// Used only by the thread that holds the guarded connection.
final class GuardState {
    let policy: AccessPolicy
    /// Reads of data tables recorded during the current prepare.
    var reads: Set<ColumnRead> = []
    /// The first thing the authorizer refused during the current prepare.
    var refusal: AccessRefusal?
    /// Instructions executed by the running query.
    var instructions = 0
    /// Monotonic nanoseconds after which the running query is interrupted.
    var deadline: UInt64 = .max
    /// Why the progress handler interrupted the running query.
    var interruption: AccessError?
    /// The data tables whose masked copies in `temp` stand in for them (empty: none, exact
    /// location). A table named here is readable only from `temp`.
    var maskedTables: Set<String> = []
    /// Set while a statement is compiled only for its lineage (never run): then a masked table
    /// may be read from `main` too, since the masked copies still in `temp` from an earlier run
    /// are not what a run of this statement will read.
    var compilingForLineage = false
    /// Set while the escrow runs its own statements on the connection (never an app's SQL):
    /// everything is allowed.
    var trusted = false

    /// Instructions between two progress-handler calls.
    static let progressInterval: Int32 = 1000

    init(policy: AccessPolicy) {
        self.policy = policy
    }

    /// Starts recording a prepare.
    func beginPrepare() {
        reads = []
        refusal = nil
    }

    /// Starts a query's budget.
    func beginExecution() {
        instructions = 0
        interruption = nil
        deadline = GuardState.now() &+ UInt64(policy.timeLimit * 1_000_000_000)
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// The authorizer's decision for one action (see `sqlite3_set_authorizer`).
    func authorize(action: Int32, first: String?, second: String?, database: String?) -> Int32 {
        if trusted { return SQLITE_OK }
        switch action {
        case SQLITE_SELECT, SQLITE_RECURSIVE:
            return SQLITE_OK
        case SQLITE_READ:
            return authorizeRead(table: first ?? "", column: second ?? "", database: database)
        case SQLITE_FUNCTION:
            let name = second ?? ""
            if let reason = AccessPolicy.refusalReason(forFunction: name) {
                return deny(.function(name: name, reason: reason))
            }
            return SQLITE_OK
        case SQLITE_INSERT: return deny(.write(operation: "INSERT", table: first ?? ""))
        case SQLITE_UPDATE: return deny(.write(operation: "UPDATE", table: first ?? ""))
        case SQLITE_DELETE: return deny(.write(operation: "DELETE", table: first ?? ""))
        case SQLITE_CREATE_TABLE: return deny(.schemaChange(operation: "CREATE TABLE", name: first ?? ""))
        case SQLITE_CREATE_INDEX: return deny(.schemaChange(operation: "CREATE INDEX", name: first ?? ""))
        case SQLITE_CREATE_TRIGGER: return deny(.schemaChange(operation: "CREATE TRIGGER", name: first ?? ""))
        case SQLITE_CREATE_VIEW: return deny(.schemaChange(operation: "CREATE VIEW", name: first ?? ""))
        case SQLITE_CREATE_VTABLE: return deny(.schemaChange(operation: "CREATE VIRTUAL TABLE", name: first ?? ""))
        case SQLITE_DROP_TABLE: return deny(.schemaChange(operation: "DROP TABLE", name: first ?? ""))
        case SQLITE_DROP_INDEX: return deny(.schemaChange(operation: "DROP INDEX", name: first ?? ""))
        case SQLITE_DROP_TRIGGER: return deny(.schemaChange(operation: "DROP TRIGGER", name: first ?? ""))
        case SQLITE_DROP_VIEW: return deny(.schemaChange(operation: "DROP VIEW", name: first ?? ""))
        case SQLITE_DROP_VTABLE: return deny(.schemaChange(operation: "DROP VIRTUAL TABLE", name: first ?? ""))
        case SQLITE_ALTER_TABLE: return deny(.schemaChange(operation: "ALTER TABLE", name: second ?? ""))
        case SQLITE_CREATE_TEMP_TABLE: return deny(.temporaryObject(operation: "CREATE TEMP TABLE", name: first ?? ""))
        case SQLITE_CREATE_TEMP_INDEX: return deny(.temporaryObject(operation: "CREATE TEMP INDEX", name: first ?? ""))
        case SQLITE_CREATE_TEMP_TRIGGER: return deny(.temporaryObject(operation: "CREATE TEMP TRIGGER", name: first ?? ""))
        case SQLITE_CREATE_TEMP_VIEW: return deny(.temporaryObject(operation: "CREATE TEMP VIEW", name: first ?? ""))
        case SQLITE_DROP_TEMP_TABLE: return deny(.temporaryObject(operation: "DROP TEMP TABLE", name: first ?? ""))
        case SQLITE_DROP_TEMP_INDEX: return deny(.temporaryObject(operation: "DROP TEMP INDEX", name: first ?? ""))
        case SQLITE_DROP_TEMP_TRIGGER: return deny(.temporaryObject(operation: "DROP TEMP TRIGGER", name: first ?? ""))
        case SQLITE_DROP_TEMP_VIEW: return deny(.temporaryObject(operation: "DROP TEMP VIEW", name: first ?? ""))
        case SQLITE_PRAGMA:
            return deny(.pragma([first, second].compactMap { $0 }.joined(separator: " = ")))
        case SQLITE_ATTACH: return deny(.attach(first ?? ""))
        case SQLITE_DETACH: return deny(.detach(first ?? ""))
        case SQLITE_TRANSACTION: return deny(.transaction(first ?? "transaction"))
        case SQLITE_SAVEPOINT: return deny(.transaction("SAVEPOINT \(second ?? "")"))
        case SQLITE_REINDEX: return deny(.operation("REINDEX"))
        case SQLITE_ANALYZE: return deny(.operation("ANALYZE"))
        default: return deny(.operation("SQLite action \(action)"))
        }
    }

    private func authorizeRead(table: String, column: String, database: String?) -> Int32 {
        let lower = table.lowercased()
        if lower.hasPrefix("sqlite_") || lower == "sqlite_master" || lower == "sqlite_temp_master" {
            return deny(.internalTable(table))
        }
        if AccessPolicy.tableFunctions.contains(lower) {
            return SQLITE_OK
        }
        if maskedTables.contains(table) {
            // Under a location accuracy below exact the masked copy, materialized in `temp`
            // before the query was compiled, is the only one readable: `main.Location`, a
            // subquery, a join or a CTE reading `main` are all refused, however they name it.
            if database == "temp" {
                reads.insert(ColumnRead(table: table, column: column.isEmpty ? nil : column))
                return SQLITE_OK
            }
            if compilingForLineage, database == nil || database == "main" {
                reads.insert(ColumnRead(table: table, column: column.isEmpty ? nil : column))
                return SQLITE_OK
            }
            if database == nil, column.isEmpty {
                // count(*) of an unqualified name (it resolves to `temp` first): no values.
                return SQLITE_OK
            }
            return deny(.unmaskedLocation("\(database ?? "main").\(table)\(column.isEmpty ? "" : ".\(column)")"))
        }
        if database == "temp" {
            return deny(.temporaryObject(operation: "reading", name: "temp.\(table)"))
        }
        if database == nil, column.isEmpty, !policy.dataTables.contains(table) {
            // A table-level read of a name that is not a table of the data database: a common
            // table expression or subquery (its own reads are reported separately).
            return SQLITE_OK
        }
        guard database == nil || database == "main", policy.dataTables.contains(table) else {
            return deny(.table(database.map { "\($0).\(table)" } ?? table))
        }
        reads.insert(ColumnRead(table: table, column: column.isEmpty ? nil : column))
        return SQLITE_OK
    }

    private func deny(_ refusal: AccessRefusal) -> Int32 {
        if self.refusal == nil { self.refusal = refusal }
        return SQLITE_DENY
    }

    /// The progress handler's decision: non-zero interrupts the running query.
    func progress() -> Int32 {
        instructions += Int(GuardState.progressInterval)
        if instructions > policy.instructionBudget {
            interruption = .budgetExceeded(instructions: policy.instructionBudget)
            return 1
        }
        if GuardState.now() > deadline {
            interruption = .timeLimitExceeded(seconds: policy.timeLimit)
            return 1
        }
        return 0
    }
}

/// The authorizer installed on the guarded connection. State comes through the context pointer.
let guardAuthorizer: @convention(c) (
    UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?
) -> Int32 = { context, action, first, second, database, _ in
    guard let context else { return SQLITE_DENY }
    let state = Unmanaged<GuardState>.fromOpaque(context).takeUnretainedValue()
    return state.authorize(
        action: action,
        first: first.map { String(cString: $0) },
        second: second.map { String(cString: $0) },
        database: database.map { String(cString: $0) }
    )
}

/// The progress handler installed on the guarded connection.
let guardProgressHandler: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
    guard let context else { return 1 }
    return Unmanaged<GuardState>.fromOpaque(context).takeUnretainedValue().progress()
}
