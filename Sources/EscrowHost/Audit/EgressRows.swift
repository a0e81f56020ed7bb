import EscrowCore
import EscrowEgress
import EscrowStore

/// The `EgressRequest` rows stored beside audit entries, read back as records.
enum EgressRows {
    static let columns = "auditSeq, position, time, host, domain, method, bytesOut, bytesIn, status, blocked, tracker, sentData"

    /// `columns`, each prefixed with the table's alias.
    static func columns(of alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.drop { $0 == " " })" }.joined(separator: ", ")
    }

    /// Every row from entry `?1` on, in entry and sending order.
    static let selectFrom = "SELECT \(columns) FROM EgressRequest WHERE auditSeq >= ?1 ORDER BY auditSeq, position"

    /// The records of entries `seqs`, by entry.
    static func load(seqs: ClosedRange<Int>, in database: Database) throws(StoreError) -> [Int: [EgressRecord]] {
        let query = try database.cached("""
            SELECT \(columns) FROM EgressRequest WHERE auditSeq BETWEEN ? AND ? ORDER BY auditSeq, position
            """)
        defer { query.reset() }
        try query.bind(.integer(Int64(seqs.lowerBound)), at: 1)
        try query.bind(.integer(Int64(seqs.upperBound)), at: 2)
        var records: [Int: [EgressRecord]] = [:]
        while try query.step() {
            records[Int(query.int64(0)), default: []].append(record(query))
        }
        return records
    }

    /// The record on the statement's current row, whose `columns` start at column `offset`.
    static func record(_ row: Statement, offset: Int32 = 0) -> EgressRecord {
        let observation = EgressObservation(
            time: row.int64(offset + 2), host: row.string(offset + 3) ?? "", method: row.string(offset + 5) ?? "",
            bytesOut: Int(row.int64(offset + 6)), bytesIn: Int(row.int64(offset + 7)),
            status: row.isNull(offset + 8) ? nil : Int(row.int64(offset + 8)), blocked: row.int64(offset + 9) != 0,
            sentData: row.int64(offset + 11) != 0)
        return EgressRecord(observation: observation, domain: row.string(offset + 4) ?? "", tracker: row.string(offset + 10))
    }

    /// Walks the rows of `selectFrom` alongside the entries, in the same order.
    struct Cursor {
        private let rows: Statement
        private var pending: Bool
        private var started = false
        /// The first entry number that had rows but was never asked for (its entry is gone).
        private(set) var skipped: Int?

        init(_ rows: Statement) {
            self.rows = rows
            self.pending = false
        }

        /// The records of entry `seq` (entries are asked for in increasing order).
        mutating func records(of seq: Int) throws(StoreError) -> [EgressRecord] {
            if !started {
                started = true
                pending = try rows.step()
            }
            var records: [EgressRecord] = []
            while pending {
                let rowSeq = Int(rows.int64(0))
                if rowSeq > seq { break }
                if rowSeq < seq {
                    if skipped == nil { skipped = rowSeq }
                } else {
                    records.append(EgressRows.record(rows))
                }
                pending = try rows.step()
            }
            return records
        }

        /// The entry number of a row no entry asked for, once every entry was read.
        mutating func remaining() throws(StoreError) -> Int? {
            if !started {
                started = true
                pending = try rows.step()
            }
            return skipped ?? (pending ? Int(rows.int64(0)) : nil)
        }
    }
}
