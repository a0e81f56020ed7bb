import EscrowCore
import EscrowTestSupport
import Foundation
import Testing

/// What the individual sees is the truth: no text an app sends can act on the terminal, hide part
/// of itself or pass for another app's.
@Suite("display integrity: hostile texts are refused or shown as they are")
struct DisplayIntegrityTests {
    static let sql = "SELECT givenName, phoneNumbers, emailAddresses FROM Contact"
    /// The hostile texts a command line can carry (an argument cannot hold NUL; the daemon and
    /// SDK tests send that one).
    static let throughArguments = HostileText.allCases.filter { $0 != .nul }

    /// Whether a text holds anything a terminal would act on or hide.
    static func isClean(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0 != "\n" && DisplayText.isUnsafe($0) }
    }

    @Test("escrow run refuses a hostile app id, purpose or parameter, says why safely, and records no flow",
          arguments: Self.throughArguments)
    func hostileRequestTextsAreRefused(_ hostile: HostileText) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)
        let attempts: [(field: String, outcome: EscrowProcess.Outcome)] = [
            ("the app id", try await home.run(sql: Self.sql, compute: "identity", app: hostile.rawValue)),
            ("the purpose", try await home.run(sql: Self.sql, compute: "identity", purpose: hostile.rawValue)),
            ("the value of parameter service",
             try await home.run(sql: "SELECT latitude, longitude FROM Location", compute: "weather.current",
                                extra: ["--param", "service=http://127.0.0.1:9/\(hostile.rawValue)"])),
        ]
        for (field, outcome) in attempts {
            #expect(outcome.status == 1, "\(field): \(outcome)")
            #expect(outcome.standardOutput.isEmpty, "\(field): \(outcome)")
            #expect(outcome.standardError.hasPrefix("escrow: \(field)"), "\(field): \(outcome)")
            #expect(Self.isClean(outcome.standardError), "\(field): \(outcome.standardError.debugDescription)")
        }
        let flows = try await home.escrow("flows", "--json")
        #expect(flows.jsonArray?.isEmpty == true, "no flow was recorded: \(flows)")
        let audit = try await home.escrow("audit", "--json")
        #expect(Self.isClean(audit.standardOutput), "the refused attempts are audited escaped: \(audit)")
        let table = try await home.escrow("audit")
        #expect(Self.isClean(table.standardOutput), "\(table)")
    }

    @Test("hostile text in SQL is refused when it holds controls, else shown escaped on a real terminal",
          .enabled(if: TerminalScreen.isAvailable, "needs tmux (Debian package tmux) to render the output"),
          arguments: Self.throughArguments)
    func hostileSQLIsRefusedOrShownAsItIs(_ hostile: HostileText) async throws {
        let home = ScratchHome()
        defer { home.remove() }
        try #require(try await home.escrow("init").succeeded)
        let literal = "'" + hostile.rawValue + "'"
        let sql = "SELECT phoneNumbers FROM Contact WHERE givenName = \(literal)"
        let outcome = try await home.run(sql: sql, compute: "identity")
        #expect(Self.isClean(outcome.standardError), "\(outcome.standardError.debugDescription)")
        if outcome.status == 1 {
            #expect(outcome.standardError.hasPrefix("escrow: the access SQL holds"), "\(outcome)")
            #expect(try await home.escrow("flows", "--json").jsonArray?.isEmpty == true)
            return
        }
        let flow = try #require(outcome.pendingFlow, "\(outcome)")
        let screen = try await TerminalScreen.capture(
            [try EscrowProcess.executable().path, "--home", home.path, "flows", "show", flow], until: "What you can do")
        #expect(screen.contains("  WHERE givenName = '\(DisplayText.escaped(hostile.rawValue))'"),
                "the literal shows escaped on its line:\n\(screen.joined(separator: "\n"))")
        #expect(screen.contains("  Contact: givenName, phoneNumbers"), "\(screen.joined(separator: "\n"))")
    }

    @Test("a flow record forged to lie (from an older escrow or written by hand) cannot spoof flows show, flows or audit",
          .enabled(if: TerminalScreen.isAvailable, "needs tmux (Debian package tmux) to render the output"))
    func forgedRecordsShowTheTruth() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let pending = try await home.run(sql: Self.sql, compute: "identity", app: "org.example.messenger",
                                         purpose: "Find friends")
        let flow = try #require(pending.pendingFlow, "\(pending)")

        // What the issue describes: the purpose moves the cursor up over "What it reads" and
        // writes a harmless list; the app id displays as another app's.
        let database = home.url.appendingPathComponent("escrow.sqlite").path
        let forge = try await SQLiteShell.run(database, """
            UPDATE Flow SET
              purpose = 'Find friends' || char(13) || char(27) || '[3A' || char(27) || '[2K  Contact: givenName' || char(10) || char(27) || '[2K',
              app = 'org.example.evil' || char(13) || 'org.signal.app  '
            WHERE id = '\(flow)';
            """)
        try #require(forge.status == 0, "sqlite3: \(forge.error)")

        let escrow = try EscrowProcess.executable().path
        let shown = try await TerminalScreen.capture([escrow, "--home", home.path, "flows", "show", flow], until: "What you can do")
        let text = shown.joined(separator: "\n")
        #expect(shown.contains("  Contact: emailAddresses, givenName, phoneNumbers"), "\(text)")
        #expect(shown.contains("  org.example.evil\\rorg.signal.app"), "the app id as it is: \(text)")
        #expect(shown.contains { $0.hasPrefix("  Find friends\\r\\u{1B}[3A\\u{1B}[2K  Contact: givenName\\n") }, "\(text)")
        #expect(shown.contains { $0.hasPrefix("Warning: this record was changed outside the escrow") }, "\(text)")
        #expect(!shown.contains("  Contact: givenName"), "no forged line: \(text)")

        let listed = try await TerminalScreen.capture([escrow, "--home", home.path, "flows"], until: "FLOW")
        #expect(listed.contains { $0.contains("org.example.evil\\rorg.signal.app") }, "\(listed.joined(separator: "\n"))")
    }

    @Test("flows show lays out the SQL that runs: comments left out, one clause per line")
    func theQueryShownIsTheOneThatRuns() async throws {
        let home = try await RunErrorTests.homeWithContacts()
        defer { home.remove() }
        let sql = """
            SELECT phoneNumbers /* only the given name, nothing else */ ,
                   emailAddresses -- harmless
            FROM Contact WHERE givenName IN (SELECT givenName FROM Contact WHERE familyName = 'a -- b')
            """
        let pending = try await home.run(sql: sql, compute: "identity")
        let flow = try #require(pending.pendingFlow, "\(pending)")
        let shown = try await home.escrow("flows", "show", flow)
        #expect(shown.succeeded, "\(shown)")
        let lines = shown.outputLines
        let start = try #require(lines.firstIndex(of: "The query (SQL, as it runs)"), "\(shown)")
        #expect(Array(lines[(start + 1)...(start + 7)]) == [
            "  SELECT phoneNumbers, emailAddresses",
            "  FROM Contact",
            "  WHERE givenName IN (",
            "    SELECT givenName",
            "    FROM Contact",
            "    WHERE familyName = 'a -- b')",
            "  (the app's comments are left out: they do not run)",
        ], "\(shown)")
        #expect(!shown.standardOutput.contains("only the given name"))
        #expect(lines.contains("  Contact: emailAddresses, familyName, givenName, phoneNumbers"), "\(shown)")
    }
}
