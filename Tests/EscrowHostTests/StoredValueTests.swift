import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// JSON values the escrow stored and reads back (a flow's and an audit entry's `reads`, a
/// server's addresses): one the escrow did not write is an error naming the record and column,
/// never an empty list ("reads nothing", "no addresses").
@Suite struct StoredValueTests {
    let logger = Logger(label: "test")

    /// Values no escrow writes in a column that holds a JSON array of strings.
    static let corruptValues = ["", "{not json", "[1, 2]", "\"Contact.givenName\"", "{\"reads\": []}", "[\"Contact.givenName\""]

    /// Writes `sql` with `values` into the home's escrow.sqlite, as someone editing the file would.
    func alter(_ temporary: TemporaryHome, _ sql: String, _ values: [SQLValue?]) throws {
        let database = try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
        try database.prepare(sql).run(values)
    }

    func isUnreadable(_ error: any Error, table: String, record: String, column: String) -> Bool {
        guard let store = error as? StoreError else { return false }
        return store.kind == .unreadableValue(table: table, record: record, column: column)
            && store.description.contains("the stored \(table) \(record) cannot be read: its \(column) is ")
            && store.description.contains("restore it from a backup")
    }

    @Test(arguments: corruptValues)
    func aFlowWhoseReadsCannotBeReadIsAnErrorNotReadsNothing(value: String) async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let request = DataflowRequest(app: "org.example.weather", purpose: "Weather",
                                          access: "SELECT longitude, latitude FROM Location LIMIT 1", compute: "location.region")
            let flow = try await #require(throws: DecisionError.self) { try await host.run(request) }.flow
            try alter(temporary, "UPDATE Flow SET reads = ? WHERE id = ?", [.text(value), .text(flow)])

            #expect { try host.flows.list() } throws: { isUnreadable($0, table: "dataflow", record: flow, column: "reads") }
            #expect { try host.flows.flow(flow) } throws: { isUnreadable($0, table: "dataflow", record: flow, column: "reads") }
            try #require(throws: StoreError.self) { try host.flows.approve(flow, .always) }
            // The run's decision step reads the flow too: the run fails, and the app is told so.
            let failure = try await #require(throws: StoreError.self) { try await host.run(request) }
            #expect(AppFailure(hostError: failure).kind == .escrowFailed)
        }
    }

    @Test(arguments: corruptValues)
    func aServerWhoseAddressesCannotBeReadIsAnErrorNotNoAddress(value: String) async throws {
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: logger)
            try alter(temporary, "INSERT INTO Server (id, addresses, caFile, serverName, addedAt) VALUES (?, ?, ?, ?, ?)",
                      [.text("compute-1"), .text(value), .text("tls/server-compute-1-ca.pem"), .text("compute-1"),
                       .text("2026-11-23T00:00:00.000Z")])
            #expect { try host.servers.server("compute-1") } throws: {
                isUnreadable($0, table: "compute server", record: "compute-1", column: "addresses")
            }
            #expect { try host.servers.list() } throws: {
                isUnreadable($0, table: "compute server", record: "compute-1", column: "addresses")
            }
        }
    }

    @Test func anAuditEntryWhoseReadsCannotBeReadIsAnErrorAndVerifySaysItWasAltered() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            _ = try await host.runApproving(app: "org.example.weather", purpose: "Weather",
                                            access: "SELECT longitude, latitude FROM Location LIMIT 1", compute: "location.region")
            #expect(try host.audit.verify() == .intact(entries: 2))
            // Someone who can write the home drops the append-only trigger and breaks the value.
            try Database(path: temporary.home.stateDatabasePath, mode: .readWrite)
                .execute("DROP TRIGGER IF EXISTS AuditEntry_append_only_update")
            try alter(temporary, "UPDATE AuditEntry SET reads = ? WHERE seq = 2", [.text("{not json")])

            #expect { try host.audit.entries() } throws: { isUnreadable($0, table: "audit entry", record: "2", column: "reads") }
            #expect { try host.audit.entry(2) } throws: { isUnreadable($0, table: "audit entry", record: "2", column: "reads") }
            #expect(try host.audit.entry(1)?.seq == 1, "the other entries still read")
            #expect(try host.audit.verify()
                    == .broken(seq: 2, reason: "its contents were altered after it was written (its reads cannot be read back)"))
        }
    }
}
