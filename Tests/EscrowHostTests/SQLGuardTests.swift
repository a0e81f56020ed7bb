import CSQLite
import EscrowCore
@testable import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// Hostile access SQL: each statement is refused with its specific error, and the data file is
/// byte-identical afterwards.
@Suite struct SQLGuardTests {
    static let hostile: [(sql: String, expected: AccessError)] = [
        // writes
        ("INSERT INTO Contact (id, containerId) VALUES ('x', 'y')", .refused(.statement("INSERT"))),
        ("UPDATE Location SET latitude = 0", .refused(.statement("UPDATE"))),
        ("DELETE FROM Photos", .refused(.statement("DELETE"))),
        ("REPLACE INTO Contact (id, containerId) VALUES ('x', 'y')", .refused(.statement("REPLACE"))),
        ("WITH t AS (SELECT 1) DELETE FROM Photos", .refused(.write(operation: "DELETE", table: "Photos"))),
        ("WITH t AS (SELECT 1) INSERT INTO Location (latitude, longitude, source) SELECT 1, 1, 'x' FROM t",
         .refused(.write(operation: "INSERT", table: "Location"))),
        ("WITH t AS (SELECT 1) UPDATE Contact SET note = 'x'", .refused(.write(operation: "UPDATE", table: "Contact"))),
        ("INSERT INTO Contact SELECT * FROM Contact", .refused(.statement("INSERT"))),
        // schema changes
        ("CREATE TABLE stolen AS SELECT * FROM Contact", .refused(.statement("CREATE"))),
        ("CREATE TEMP TABLE t (x)", .refused(.statement("CREATE"))),
        ("CREATE TEMP VIEW v AS SELECT * FROM Contact", .refused(.statement("CREATE"))),
        ("CREATE INDEX i ON Contact (note)", .refused(.statement("CREATE"))),
        ("CREATE TRIGGER t AFTER INSERT ON Location BEGIN SELECT 1; END", .refused(.statement("CREATE"))),
        ("CREATE VIRTUAL TABLE f USING fts5(x)", .refused(.statement("CREATE"))),
        ("DROP TABLE Contact", .refused(.statement("DROP"))),
        ("ALTER TABLE Contact ADD COLUMN leaked TEXT", .refused(.statement("ALTER"))),
        // attach, pragma, maintenance
        ("ATTACH DATABASE '/tmp/x.sqlite' AS x", .refused(.attach(""))),
        ("ATTACH 'escrow.sqlite' AS state", .refused(.attach(""))),
        ("DETACH DATABASE main", .refused(.detach(""))),
        ("PRAGMA journal_mode = DELETE", .refused(.pragma("journal_mode"))),
        ("PRAGMA table_info(Contact)", .refused(.pragma("table_info"))),
        ("pragma writable_schema = 1", .refused(.pragma("writable_schema"))),
        ("VACUUM", .refused(.statement("VACUUM"))),
        ("VACUUM INTO '/tmp/copy.sqlite'", .refused(.statement("VACUUM"))),
        ("REINDEX", .refused(.statement("REINDEX"))),
        ("ANALYZE", .refused(.statement("ANALYZE"))),
        ("BEGIN IMMEDIATE", .refused(.statement("BEGIN"))),
        ("SAVEPOINT s", .refused(.statement("SAVEPOINT"))),
        ("EXPLAIN SELECT * FROM Contact", .refused(.explain)),
        // functions
        ("SELECT load_extension('/tmp/evil.so')", .refused(.function(name: "load_extension", reason: "loading SQLite extensions is not allowed"))),
        ("SELECT randomblob(1000000000)", .refused(.function(name: "randomblob", reason: "not a pure function (its result is random); compute() can make random values"))),
        ("SELECT zeroblob(1000000000)", .refused(.function(name: "zeroblob", reason: "allocates memory without reading data; not allowed"))),
        ("SELECT sqlite_version()", .refused(.function(name: "sqlite_version", reason: "an SQLite internal function; not allowed"))),
        ("SELECT sqlite_compileoption_get(0)", .refused(.function(name: "sqlite_compileoption_get", reason: "an SQLite internal function; not allowed"))),
        ("SELECT last_insert_rowid()", .refused(.function(name: "last_insert_rowid", reason: "reports connection state, not data; not allowed"))),
        ("SELECT givenName FROM Contact ORDER BY random()", .refused(.function(name: "random", reason: "not a pure function (its result is random); compute() can make random values"))),
        // joins that compare columns without the authorizer hearing of them (their lineage would be empty)
        ("SELECT 1 FROM Contact a JOIN Contact b USING (id)", .refused(.implicitJoin("USING"))),
        ("SELECT x FROM (SELECT '+1 555 0100' AS phoneNumbers) g NATURAL JOIN Contact", .refused(.implicitJoin("NATURAL"))),
        ("select 1 from Location a join Location b using(latitude)", .refused(.implicitJoin("USING"))),
        // internal tables, other databases, other tables
        ("SELECT * FROM sqlite_master", .refused(.internalTable("sqlite_master"))),
        ("SELECT sql FROM sqlite_schema", .refused(.internalTable("sqlite_master"))),
        ("SELECT * FROM main.sqlite_master", .refused(.internalTable("sqlite_master"))),
        ("SELECT * FROM sqlite_temp_master", .refused(.internalTable("sqlite_temp_master"))),
        ("SELECT name FROM pragma_table_info('Contact')", .refused(.pragma("table_info"))),
        ("SELECT * FROM temp.sqlite_master", .refused(.internalTable("sqlite_temp_master"))),
        ("SELECT * FROM \"pragma_database_list\"", .refused(.pragma("database_list"))),
        ("SELECT * FROM temp.Contact", .invalidSQL(message: "no such table: temp.Contact", offset: nil)),
        ("SELECT * FROM Location; DELETE FROM Location", .refused(.multipleStatements)),
        ("SELECT 1; SELECT 2", .refused(.multipleStatements)),
        ("SELECT * FROM Contact;;  -- fine\n; SELECT 1", .refused(.multipleStatements)),
        // malformed or empty
        ("", .emptyStatement),
        ("   -- only a comment\n /* and another */ ", .emptyStatement),
        ("SELECT secret FROM Contact", .invalidSQL(message: "no such column: secret", offset: 7)),
        ("SELECT * FROM Audit", .invalidSQL(message: "no such table: Audit", offset: nil)),
        ("SELEKT * FROM Contact", .refused(.statement("SELEKT"))),
    ]

    @Test(arguments: SQLGuardTests.hostile)
    func refusesHostileStatement(sql: String, expected: AccessError) async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let before = try Data(contentsOf: URL(fileURLWithPath: temporary.home.dataDatabasePath))
            let host = try EscrowHost(home: temporary.home, logger: .init(label: "test"))
            await #expect(throws: expected) {
                try await host.runApproving(app: "org.example.evil", purpose: "test", access: sql, compute: "identity")
            }
            #expect(throws: expected) { try host.lineage(of: sql) }
            let after = try Data(contentsOf: URL(fileURLWithPath: temporary.home.dataDatabasePath))
            #expect(before == after, "the data file changed after: \(sql)")
        }
    }

    @Test func atLeastFortyHostileStatements() {
        #expect(Self.hostile.count >= 40)
    }

    @Test func refusalMessagesNameThePartRefused() {
        #expect(AccessError.refused(.pragma("journal_mode")).description.contains("PRAGMA journal_mode"))
        #expect(AccessError.refused(.write(operation: "DELETE", table: "Photos")).description.contains("DELETE on Photos"))
        #expect(AccessError.invalidSQL(message: "no such table: Audit", offset: 14).description.contains("Contact, Location and Photos"))
    }

    @Test func overlongSQLIsRefused() async throws {
        try await TemporaryHome.with { temporary in
            var policy = AccessPolicy()
            policy.maxSQLLength = 100
            let host = try EscrowHost(home: temporary.home, policy: policy, logger: .init(label: "test"))
            let sql = "SELECT givenName FROM Contact WHERE note = '" + String(repeating: "x", count: 200) + "'"
            #expect(throws: AccessError.sqlTooLong(length: sql.utf8.count, limit: 100)) { try host.lineage(of: sql) }
        }
    }

    @Test func runawayRecursiveQueryIsInterruptedWithinItsBudget() async throws {
        try await TemporaryHome.with { temporary in
            var policy = AccessPolicy()
            policy.instructionBudget = 2_000_000
            let host = try EscrowHost(home: temporary.home, policy: policy, logger: .init(label: "test"))
            let sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
            let clock = ContinuousClock()
            let started = clock.now
            await #expect(throws: AccessError.budgetExceeded(instructions: 2_000_000)) {
                try await host.runApproving(app: "org.example.loop", purpose: "test", access: sql, compute: "identity")
            }
            // Without the budget the query never ends; the bound only catches that.
            #expect(clock.now - started < .seconds(60))
            // The connection is usable afterwards.
            let result = try await host.runApproving(app: "org.example.loop", purpose: "test", access: "SELECT 1 AS one", compute: "identity")
            #expect(result.output.columns.first?.int64(at: 0) == 1)
        }
    }

    @Test func runawayQueryIsInterruptedAtItsTimeLimit() async throws {
        try await TemporaryHome.with { temporary in
            var policy = AccessPolicy()
            policy.instructionBudget = .max
            policy.timeLimit = 0.2
            let host = try EscrowHost(home: temporary.home, policy: policy, logger: .init(label: "test"))
            let sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
            await #expect(throws: AccessError.timeLimitExceeded(seconds: 0.2)) {
                try await host.runApproving(app: "org.example.loop", purpose: "test", access: sql, compute: "identity")
            }
        }
    }

    @Test func rowAndByteLimitsStopLargeResults() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            var policy = AccessPolicy()
            policy.maxRows = 2
            let host = try EscrowHost(home: temporary.home, policy: policy, logger: .init(label: "test"))
            await #expect(throws: AccessError.tooManyRows(limit: 2)) {
                try await host.runApproving(app: "a.b", purpose: "test", access: "SELECT id FROM Contact", compute: "identity")
            }
            var bytes = AccessPolicy()
            bytes.maxBytes = 10
            let small = try EscrowHost(home: temporary.home, policy: bytes, logger: .init(label: "test"))
            await #expect(throws: AccessError.tooManyBytes(limit: 10)) {
                try await small.runApproving(app: "a.b", purpose: "test", access: "SELECT note, givenName, familyName FROM Contact", compute: "identity")
            }
        }
    }

    @Test func hugeValuesAreRefusedBeforeTheyAreBuilt() async throws {
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: .init(label: "test"))
            await #expect(throws: AccessError.runningValueTooLarge(limit: 64 * 1024 * 1024)) {
                try await host.runApproving(app: "a.b", purpose: "test", access: "SELECT replace(printf('%.*c', 1000000, 'x'), 'x', '\(String(repeating: "y", count: 100))') AS big", compute: "identity")
            }
        }
    }

    /// The issue's query: five rows of a printf field a billion characters wide. SQLite filled
    /// each for tens of seconds inside one call, then gave NULL and the run succeeded.
    @Test func printfFieldOverTheLengthLimitFailsAtOnce() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: .init(label: "test"))
            let sql = "SELECT printf('%.*c', 1000000000, givenName) AS padded FROM Contact LIMIT 5"
            let clock = ContinuousClock()
            let started = clock.now
            await #expect(throws: AccessError.runningValueTooLarge(limit: 64 * 1024 * 1024)) {
                try await host.runApproving(app: "a.b", purpose: "test", access: sql, compute: "identity")
            }
            // Before, this took tens of seconds a row; the bound only catches that.
            #expect(clock.now - started < .seconds(20))
        }
    }

    /// Time spent inside one function call per row: ten rows of a 60-million-character printf
    /// field, under a thousand SQLite instructions in all, so the progress handler never runs.
    /// The watchdog interrupts the query at its time limit, with the time limit's error.
    @Test func timeInsideFunctionCallsIsInterruptedAtTheTimeLimit() async throws {
        try await TemporaryHome.with { temporary in
            var policy = AccessPolicy()
            policy.instructionBudget = .max
            policy.timeLimit = 0.5
            let host = try EscrowHost(home: temporary.home, policy: policy, logger: .init(label: "test"))
            // A query before it sets the watchdog's timer for its own, earlier deadline: the timer
            // fires then and sets itself again for the slow query's.
            let before = try await host.runApproving(app: "org.example.wide", purpose: "test", access: "SELECT 1 AS one", compute: "identity")
            #expect(before.output.columns.first?.int64(at: 0) == 1)
            let sql = """
                WITH n(i) AS (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10))
                SELECT length(printf('%.*c', 60000000 + i, 'x')) AS width FROM n
                """
            await #expect(throws: AccessError.timeLimitExceeded(seconds: 0.5)) {
                try await host.runApproving(app: "org.example.wide", purpose: "test", access: sql, compute: "identity")
            }
            // The interruption does not reach the next query on the connection.
            let result = try await host.runApproving(app: "org.example.wide", purpose: "test", access: "SELECT 1 AS one", compute: "identity")
            #expect(result.output.columns.first?.int64(at: 0) == 1)
        }
    }

    /// SQL functions that can build a large value or spend long in one call: each fails with the
    /// length limit's error (here 1 MiB), none returns NULL or runs on.
    static let oversizedValues = [
        "printf('%.*c', 1000000000, 'x')",
        "printf('%.*c', -1000000000, 'x')",
        "printf('%.*c', '1000000000', 'x')",
        "format('%.*c', 2000000000, 'x')",
        "printf('%*d', 2000000000, 1)",
        "printf('%-*s', 2000000000, 'x')",
        "printf('%2000000000d', 1)",
        "printf('%.2000000000f', 1.5)",
        "printf('%!.*g', 2000000000, 1.5)",
        "printf('%s%s', printf('%.*c', 600000, 'x'), printf('%.*c', 600000, 'y'))",
        "printf('%.*c', 600000, 'x') || printf('%.*c', 600000, 'y')",
        "json_quote(printf('%.*c', 600000, '\"'))",
        "replace(printf('%.*c', 100000, 'x'), 'x', 'yyyyyyyyyyyyyyyyyyyy')",
        "hex(printf('%.*c', 600000, 'x'))",
        "quote(CAST(printf('%.*c', 600000, 'x') AS BLOB))",
        "json_array(printf('%.*c', 600000, 'x'), printf('%.*c', 600000, 'y'))",
        "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) SELECT group_concat(printf('%.*c', 100000, 'x')) FROM n)",
        "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) SELECT json_group_array(printf('%.*c', 100000, 'x')) FROM n)",
    ]

    @Test(arguments: SQLGuardTests.oversizedValues)
    func oversizedValueFailsWithTheLengthLimit(expression: String) async throws {
        try await TemporaryHome.with { temporary in
            var policy = AccessPolicy()
            policy.maxValueBytes = 1 << 20
            let host = try EscrowHost(home: temporary.home, policy: policy, logger: .init(label: "test"))
            await #expect(throws: AccessError.runningValueTooLarge(limit: 1 << 20)) {
                try await host.runApproving(app: "a.b", purpose: "test", access: "SELECT \(expression) AS big", compute: "identity")
            }
        }
    }

    /// A result value over `maxValueBytes` (below SQLite's 1 MiB floor) fails the run, naming the
    /// column, its size and the limit; a value at the limit passes.
    @Test func resultValueOverTheLimitFailsTheRun() async throws {
        try await TemporaryHome.with { temporary in
            var policy = AccessPolicy()
            policy.maxValueBytes = 1000
            let host = try EscrowHost(home: temporary.home, policy: policy, logger: .init(label: "test"))
            await #expect(throws: AccessError.valueTooLarge(column: "padded", bytes: 2000, limit: 1000)) {
                try await host.runApproving(app: "a.b", purpose: "test", access: "SELECT 1 AS n, printf('%.*c', 2000, 'x') AS padded", compute: "identity")
            }
            await #expect(throws: AccessError.valueTooLarge(column: "raw", bytes: 1001, limit: 1000)) {
                try await host.runApproving(app: "a.b", purpose: "test", access: "SELECT CAST(printf('%.*c', 1001, 'x') AS BLOB) AS raw", compute: "identity")
            }
            let result = try await host.runApproving(app: "a.b", purpose: "test", access: "SELECT printf('%.*c', 1000, 'x') AS padded", compute: "identity")
            #expect(result.output.columns.first?.string(at: 0)?.utf8.count == 1000)
            let message = AccessError.valueTooLarge(column: "padded", bytes: 2000, limit: 1000).description
            #expect(message.contains("padded") && message.contains("2000 bytes") && message.contains("limit of 1000") && message.contains("substr"))
        }
    }

    /// `instr` and `replace` search in linear time: SQLite's own compare the needle at every
    /// position, hours inside one call for these two (where the watchdog cannot reach).
    @Test(.timeLimit(.minutes(1)), arguments: [
        ("instr(printf('%.*c', 4000000, 'a'), printf('%.*c', 2000000, 'a') || 'b')", 0),
        ("instr(CAST(printf('%.*c', 4000000, 'a') AS BLOB), CAST(printf('%.*c', 2000000, 'a') || 'b' AS BLOB))", 0),
        ("length(replace(printf('%.*c', 4000000, 'a'), printf('%.*c', 2000000, 'a') || 'b', 'x'))", 4_000_000),
    ])
    func substringSearchEndsQuickly(expression: String, expected: Int) async throws {
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: .init(label: "test"))
            let result = try await host.runApproving(app: "a.b", purpose: "test", access: "SELECT \(expression) AS n", compute: "identity")
            #expect(result.output.columns.first?.int64(at: 0) == Int64(expected))
        }
    }

    /// The guard's instr and replace give SQLite's own results: value and type.
    @Test func substringSearchGivesSQLitesOwnResults() async throws {
        let expressions = [
            "instr('abc', 'b')", "instr('héllo', 'l')", "instr(x'010203', x'03')", "instr('abc', '')",
            "instr(NULL, 'a')", "instr('abc', NULL)", "instr(12345, 34)", "instr(x'616263', 'c')", "instr('abc', x'63')",
            "instr('aé', x'a9')", "instr('ééx', 'x')", "instr('abc', 'abcd')", "instr('', 'a')", "instr(x'', x'00')",
            "instr(x'80410041', x'41')", "instr(CAST(x'80414243' AS TEXT), 'A')", "instr(1.5, '.')",
            "replace('abcabc', 'b', 'xy')", "replace('aaa', 'aa', 'b')", "replace('abc', '', 'z')", "replace(123, 2, 9)",
            "replace(123, '', 9)", "replace(NULL, 'a', 'b')", "replace('a', NULL, 'b')", "replace('a', 'a', NULL)",
            "replace('a', '', NULL)", "replace(x'616263', 'b', 'z')", "replace('héllo', 'é', 'e')", "replace('abc', 'abc', '')",
            "replace('', 'a', 'b')", "replace('aXbXc', 'X', '')", "replace(1.25, '.', ',')",
        ]
        try await Self.expectSQLitesOwnResults(expressions)
    }

    /// The guard's trim, ltrim and rtrim give SQLite's own results.
    @Test func trimGivesSQLitesOwnResults() async throws {
        let expressions = [
            "trim('  ab  ')", "ltrim('  ab  ')", "rtrim('  ab  ')", "trim('xxabxx', 'x')", "trim('abcba', 'ab')",
            "trim('abcba', 'ba')", "ltrim('héhéa', 'hé')", "rtrim('aéé', 'é')", "trim('é', x'c3')", "trim(x'c3a9c3', x'c3')",
            "trim('abc', '')", "trim(NULL)", "trim('a', NULL)", "trim(NULL, 'a')", "trim(12300, '0')", "trim(1.5, '15')",
            "trim(x'414141', 'A')", "trim('xyx', 'x' || char(0) || 'y')", "ltrim('ééé', x'c3a9c3')", "rtrim('aéé', x'a9c3a9')",
            "trim('', 'a')", "trim('aaa', 'a')", "ltrim(char(0) || 'a', char(0))", "trim('ab', x'80')", "trim(x'8041', x'80')",
        ]
        try await Self.expectSQLitesOwnResults(expressions)
    }

    /// A long set of characters over a long text: SQLite's own trim compared the whole set at every
    /// position (86 s here for this query, inside one call); the guard's finishes within the time limit.
    @Test func trimWithALongSetFinishesWithinTheTimeLimit() async throws {
        try await TemporaryHome.with { temporary in
            var policy = AccessPolicy()
            policy.timeLimit = 60
            let host = try EscrowHost(home: temporary.home, policy: policy, logger: .init(label: "test"))
            let result = try await host.runApproving(
                app: "a.b", purpose: "test",
                access: "SELECT length(trim(printf('%.*c', 1000000, 'a') || 'b', printf('%.*c', 9999, 'z') || 'a')) AS n",
                compute: "identity")
            #expect(result.output.columns.first?.int64(at: 0) == 1)
        }
    }

    /// The guard's printf and format give SQLite's own output, byte for byte.
    @Test func printfGivesSQLitesOwnOutput() async throws {
        let expressions = [
            "printf('%.2f', 3.14159)", "printf('%5s|%-5s|', 'ab', 'cd')", "format('%d items', 3)",
            "printf('%q', 'it''s')", "printf('%Q', NULL)", "printf('%,d', 1234567)", "printf('%.3c', 'é')",
            "printf('%%')", "printf('%5.1f%%', 2.25)", "printf('abc')", "printf('%s', NULL)", "printf(NULL)",
            "printf('%x %X %o', 255, 255, 8)", "printf('%08.3f', -3.5)", "printf('%w', 'a\"b')", "printf('%z', 'z')",
            "printf('%*d|%-*d|', 4, 7, 4, 7)", "printf('%.*s', 2, 'abcdef')", "printf('%.*s', 2000000000, 'abc')",
            "printf('%d %d', 1)", "printf('%!.3g', 1.0)", "printf('%e', 12345.678)", "printf('%c', 'xyz')",
            "printf('%s', x'41')", "printf('%lld', 9007199254740993)", "printf('%.*c', 3, 'ab')",
        ]
        try await Self.expectSQLitesOwnResults(expressions)
    }

    /// Each expression gives the same value and type on the guarded connection as in plain SQLite
    /// (for the functions the guard replaces with its own).
    static func expectSQLitesOwnResults(_ expressions: [String]) async throws {
        let plain = try Database(path: ":memory:", mode: .readWrite)
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: .init(label: "test"))
            for expression in expressions {
                let statement = try plain.prepare("SELECT quote(\(expression)), typeof(\(expression))")
                #expect(try statement.step())
                let expected = [statement.string(0), statement.string(1)]
                let result = try await host.runApproving(app: "a.b", purpose: "test",
                                                         access: "SELECT quote(\(expression)) AS v, typeof(\(expression)) AS t", compute: "identity")
                #expect(result.output.columns.map { $0.string(at: 0) } == expected, "\(expression)")
            }
        }
    }

    /// LIKE and GLOB patterns are held to `maxPatternBytes`: matching costs the pattern's length
    /// times the text's inside one call, where the time limit cannot interrupt it.
    @Test func longLikeAndGlobPatternsAreRefused() async throws {
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: .init(label: "test"))
            let limit = AccessPolicy().maxPatternBytes
            for (pattern, text) in [("%" + String(repeating: "a", count: limit - 2) + "b", "aaab"), ("*" + String(repeating: "a", count: limit - 1), "x")] {
                let operation = pattern.hasPrefix("%") ? "LIKE" : "GLOB"
                let allowed = try await host.runApproving(app: "a.b", purpose: "test",
                                                          access: "SELECT '\(text)' \(operation) '\(pattern)' AS v", compute: "identity")
                #expect(allowed.output.columns.first?.int64(at: 0) == 0)
                let error = await #expect(throws: AccessError.self) {
                    try await host.runApproving(app: "a.b", purpose: "test",
                                                access: "SELECT '\(text)' \(operation) '\(pattern)x' AS v", compute: "identity")
                }
                #expect("\(error.map { "\($0)" } ?? "")".contains("LIKE or GLOB pattern too complex"), "\(operation)")
            }
        }
    }

    @Test func guardedConnectionCannotReachTheEscrowDatabase() async throws {
        try await TemporaryHome.with { temporary in
            let host = try EscrowHost(home: temporary.home, logger: .init(label: "test"))
            await #expect(throws: AccessError.invalidSQL(message: "no such table: Import", offset: nil)) {
                try await host.runApproving(app: "a.b", purpose: "test", access: "SELECT * FROM Import", compute: "identity")
            }
        }
    }
}
