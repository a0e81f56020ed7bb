import EscrowCore
import EscrowTestSupport
import Testing

@Suite struct RequestTextTests {
    @Test(arguments: HostileText.allCases)
    func hostileTextIsRefusedAsAppIDPurposeAndParameter(_ hostile: HostileText) {
        #expect(throws: RequestTextError.self) { try RequestText.checkAppID(hostile.rawValue) }
        #expect(throws: RequestTextError.self) { try RequestText.checkPurpose(hostile.rawValue) }
        #expect(throws: RequestTextError.self) { try RequestText.checkParameter(name: "city", value: hostile.rawValue) }
        #expect(throws: RequestTextError.self) { try RequestText.checkParameter(name: hostile.rawValue, value: "Paris") }
    }

    @Test(arguments: HostileText.allCases)
    func theRefusalQuotesTheTextEscaped(_ hostile: HostileText) throws {
        let error = try #require(throws: RequestTextError.self) { try RequestText.checkPurpose(hostile.rawValue) }
        #expect(!DisplayText.needsEscaping(error.description), "\(error.description)")
        #expect(error.description.hasPrefix("the purpose"))
    }

    @Test(arguments: [
        "SELECT givenName FROM Contact\r-- givenName only",
        "SELECT 1\0",
        "SELECT phoneNumbers FROM Contact /*\u{1B}[2K*/",
        "SELECT 1 \u{85}",
        "SELECT '\u{202E}' FROM Contact",
        "SELECT 1\u{0C}",
    ])
    func sqlWithControlsOrBidiOverridesIsRefused(_ sql: String) {
        #expect(throws: RequestTextError.self) { try RequestText.checkSQL(sql) }
    }

    @Test func sqlMayHoldTabsLineBreaksAndAnyPrintableText() throws {
        try RequestText.checkSQL("SELECT givenName,\n\tfamilyName\nFROM Contact WHERE givenName = 'Zoë 😀' -- a comment\n")
        try RequestText.checkSQL("SELECT 'a\u{200D}b'")
    }

    @Test(arguments: ["org.example.weather", "org.wikipedia", "com.example.app-2", "io.x_y.z", "a.b"])
    func reverseDNSAppIDsAreAccepted(_ app: String) throws {
        try RequestText.checkAppID(app)
    }

    @Test(arguments: ["", "weather", ".org.example", "org.example.", "org..example", "org.exаmple" /* Cyrillic а */,
                      "org.example weather", "org/example", String(repeating: "a.", count: 128) + "b"])
    func otherAppIDsAreRefused(_ app: String) {
        #expect(throws: RequestTextError.self) { try RequestText.checkAppID(app) }
    }

    @Test func purposesAndValuesAreBounded() throws {
        try RequestText.checkPurpose(String(repeating: "é", count: RequestText.maximumPurposeLength))
        let long = try #require(throws: RequestTextError.self) {
            try RequestText.checkPurpose(String(repeating: "é", count: RequestText.maximumPurposeLength + 1))
        }
        #expect(long.problem == .tooLong(limit: RequestText.maximumPurposeLength))
        #expect(throws: RequestTextError.self) {
            try RequestText.checkParameter(name: "city", value: String(repeating: "x", count: RequestText.maximumParameterValueLength + 1))
        }
        #expect(throws: RequestTextError.self) { try RequestText.checkPurpose("   ") }
        try RequestText.checkPurpose("Météo 🌦️ près de chez vous")
    }

    @Test func theErrorNamesTheFieldTheCharacterAndWhereItIs() throws {
        let error = try #require(throws: RequestTextError.self) {
            try RequestText.check(app: "org.example.weather", purpose: "Weather", sql: "SELECT 1\r",
                                  parameters: [(key: "city", value: "Paris")])
        }
        #expect(error.description == "the access SQL holds the control character \\r at character 8: only tab and line feed are allowed")
        let value = try #require(throws: RequestTextError.self) { try RequestText.checkParameter(name: "city", value: "Pa\u{200B}ris") }
        #expect(value.description.contains("the value of parameter city \"Pa\\u{200B}ris\" holds the invisible"))
    }
}
