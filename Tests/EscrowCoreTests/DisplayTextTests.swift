import EscrowCore
import EscrowTestSupport
import Foundation
import Testing

@Suite struct DisplayTextTests {
    @Test(arguments: HostileText.allCases)
    func hostileTextIsShownWithNothingThatActsOrHides(_ hostile: HostileText) {
        let shown = DisplayText.escaped(hostile.rawValue)
        #expect(DisplayText.needsEscaping(hostile.rawValue))
        #expect(!DisplayText.needsEscaping(shown), "escaping is complete: \(shown)")
        #expect(!shown.unicodeScalars.contains { DisplayText.isUnsafe($0) })
        #expect(shown.contains("\\"), "what was escaped is visible as an escape")
    }

    @Test func eachKindOfCharacterHasItsVisibleForm() {
        #expect(DisplayText.escaped("a\rb") == "a\\rb")
        #expect(DisplayText.escaped("a\nb") == "a\\nb")
        #expect(DisplayText.escaped("a\tb") == "a\\tb")
        #expect(DisplayText.escaped("a\0b") == "a\\0b")
        #expect(DisplayText.escaped("\u{1B}[31m") == "\\u{1B}[31m")
        #expect(DisplayText.escaped("x\u{9B}y") == "x\\u{9B}y")
        #expect(DisplayText.escaped("a\u{202E}b") == "a\\u{202E}b")
        #expect(DisplayText.escaped("a\u{200B}b") == "a\\u{200B}b")
        #expect(DisplayText.escaped("\u{E0041}") == "\\u{E0041}", "tag characters are invisible")
    }

    @Test func ordinaryTextOfAnyScriptIsShownAsItIs() {
        for text in ["Articles near you", "Météo à Paris", "天気予報", "Погода", "مرحبا", "😀 ❤️ 👍🏽", "née Müller",
                     "e\u{301}", "SELECT 'a' || \"b\" FROM Contact", "C:\\path"] {
            #expect(DisplayText.escaped(text) == text)
            #expect(!DisplayText.needsEscaping(text))
        }
    }

    @Test func lineBreaksCanBeKeptForTextShownInFull() {
        #expect(DisplayText.escaped("SELECT a\nFROM t", lineBreaks: true) == "SELECT a\nFROM t")
        #expect(DisplayText.escaped("SELECT a\r\nFROM t", lineBreaks: true) == "SELECT a\\r\nFROM t")
        #expect(DisplayText.escaped("a\tb", lineBreaks: true) == "a    b")
        #expect(DisplayText.escaped("a\u{1B}[A\nb", lineBreaks: true) == "a\\u{1B}[A\nb")
    }

    @Test func aFewCombiningMarksAreKeptAStackIsCut() {
        #expect(DisplayText.escaped("a\u{301}\u{302}") == "a\u{301}\u{302}")
        let shown = DisplayText.escaped(HostileText.stackedMarks.rawValue)
        #expect(shown.hasPrefix("e\u{301}\u{302}\u{303}\u{304}\\u{305}"))
    }

    @Test func displayJSONEscapesWhatTheTerminalWouldActOnAndDecodesToTheSameText() throws {
        for hostile in HostileText.allCases {
            var writer = JSONWriter.forDisplay()
            writer.array([hostile.rawValue]) { writer, text in writer.string(text) }
            let json = writer.text
            #expect(!json.unicodeScalars.contains { DisplayText.isUnsafe($0) }, "\(hostile): \(json)")
            let decoded = try JSONDecoder().decode([String].self, from: Data(json.utf8))
            #expect(decoded == [hostile.rawValue])
        }
        var writer = JSONWriter.forDisplay()
        writer.string("a\u{E0041}")
        #expect(writer.text == "\"a\\udb40\\udc41\"", "characters beyond the BMP are written as surrogate pairs")
        var plain = JSONWriter()
        plain.string("a\u{200B}")
        #expect(plain.text == "\"a\u{200B}\"", "the storage writer keeps RFC 8259's minimal escaping")
    }
}
