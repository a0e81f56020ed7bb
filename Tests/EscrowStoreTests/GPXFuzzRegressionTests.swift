import Foundation
import Testing
@testable import EscrowStore

/// A GPX input, as bytes, that crashed `fuzz-gpx` once, with the line and words its error must have.
struct GPXCrashCase: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var line: Int?
    var reason: String

    var testDescription: String { name }
}

/// Inputs found by fuzzing (docs/RELIABILITY.md). Each crashed the import or gave a wrong error
/// before its fix; each is also in the seed corpus (Fuzz/Corpus/fuzz-gpx/regression-*).
@Suite("GPX parser: inputs found by fuzzing")
struct GPXFuzzRegressionTests {
    /// The bytes of `text` with `byte` put in place of each `\u{FFFD}`.
    static func bytes(_ text: String, byte: UInt8 = 0xED) -> [UInt8] {
        Array(text.replacingOccurrences(of: "\u{FFFD}", with: "\u{1}").utf8).map { $0 == 0x01 ? byte : $0 }
    }

    static let crashes: [GPXCrashCase] = [
        // FoundationXML force-unwrapped libxml2's (recovered) names and comments as UTF-8.
        .init(name: "invalid UTF-8 in a comment", bytes: bytes("<gpx>\n<!--\u{FFFD}-->\n</gpx>"), line: 2,
              reason: "not well-formed XML: byte 0xED is not valid UTF-8"),
        .init(name: "invalid UTF-8 in a tag name (first crash found)", bytes: bytes("<\u{FFFD}<gpx a"), line: 1,
              reason: "byte 0xED is not valid UTF-8"),
        .init(name: "invalid UTF-8 under a declaration naming UTF-8",
              bytes: bytes("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx>\n<wpt lat=\"1\" lon=\"2\"><name>\u{FFFD}</name></wpt></gpx>"),
              line: 3, reason: "export it again as UTF-8 or declare its real encoding"),
        .init(name: "invalid UTF-8 under a malformed declaration naming another encoding",
              bytes: bytes("<?xml vesion=\"1.0\" encoding=\"ISO-8859-1\"?>\n<gp\u{FFFD} version=\"1.1\"/>", byte: 0xFE),
              line: 2, reason: "byte 0xFE is not valid UTF-8"),
        // Found reviewing the fix above: libxml2 reads a document labelled UTF-16 whose first bytes
        // are 8-bit as UTF-8.
        .init(name: "invalid UTF-8 under a declaration naming UTF-16",
              bytes: bytes("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<!--\u{FFFD}-->\n<gpx/>"), line: 2,
              reason: "byte 0xED is not valid UTF-8"),
        // libxml2 fails to convert from UCS-4 (its first bytes) before the first line: it said "line 0".
        .init(name: "UCS-4 first bytes, then UTF-8",
              bytes: [0x3C, 0, 0, 0] + Array("<?xml version=\"1.0\"?>\n<gpx/>".utf8), line: nil,
              reason: "not well-formed XML: the bytes are not in the encoding that the file's first bytes or XML declaration name"),
        // FoundationXML took strlen of the null data libxml2 passes for `<?name?>`.
        .init(name: "a processing instruction without data (as found: after a byte-order mark)",
              bytes: [0xEF, 0xBB, 0xBF] + Array("<?x8U?>\n<gpx>\n<wpt lat=\"43.3\" lon=\"3.5\"/>\n</gpx>\n".utf8), line: 1,
              reason: "the processing instruction <?x8U?> has no data"),
        .init(name: "a processing instruction without data inside <gpx>",
              bytes: Array("<gpx>\n<wpt lat=\"1\" lon=\"2\"/>\n<?garmin?>\n</gpx>".utf8), line: 3,
              reason: "the processing instruction <?garmin?> has no data"),
        .init(name: "an entity that expands to a processing instruction without data",
              bytes: Array("<!DOCTYPE gpx [<!ENTITY e \"&#60;?x?>\">]>\n<gpx>&e;</gpx>".utf8), line: 1,
              reason: "a <!DOCTYPE> declaration: GPX files have none"),
        .init(name: "a processing instruction without data in UTF-16",
              bytes: [0xFF, 0xFE] + "<gpx>\n<?x?></gpx>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, line: 2,
              reason: "the processing instruction <?x?> has no data"),
    ]

    @Test("inputs that crashed fuzz-gpx are refused with a line and a reason", arguments: crashes)
    func crashInput(_ input: GPXCrashCase) {
        do {
            let points = try GPXParser.parse(Data(input.bytes), file: "bad.gpx")
            Issue.record("parsed \(points.count) points from a malformed file")
        } catch {
            #expect(error.file == "bad.gpx")
            #expect(error.line == input.line)
            #expect(error.reason.contains(input.reason), "\(error)")
        }
    }

    @Test("a processing instruction with data, even empty, is still read")
    func processingInstructionWithData() throws {
        let text = "<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"track.xsl\"?>\n<gpx>\n<?empty ?>\n<wpt lat=\"1\" lon=\"2\"/>\n</gpx>"
        let points = try GPXParser.parse(Data(text.utf8), file: "pi.gpx")
        #expect(points.map(\.line) == [5])
    }

    @Test("a file that declares ISO-8859-1 may hold bytes that are not UTF-8")
    func declaredLatin1() throws {
        let text = "<?xml version='1.0' encoding='ISO-8859-1'?>\n<gpx>\n<wpt lat=\"1\" lon=\"2\"><name>Caf\u{FFFD}</name></wpt>\n</gpx>"
        let points = try GPXParser.parse(Data(Self.bytes(text, byte: 0xE9)), file: "latin1.gpx")
        #expect(points.map(\.latitude) == [1])
        #expect(points.map(\.line) == [3])
    }

    @Test("a UTF-16 file with a byte-order mark is read", arguments: [true, false])
    func utf16(littleEndian: Bool) throws {
        let text = "<gpx>\n<wpt lat=\"48.5\" lon=\"2.25\"/>\n</gpx>"
        let units = text.utf16.flatMap { unit in
            littleEndian ? [UInt8(unit & 0xFF), UInt8(unit >> 8)] : [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        let points = try GPXParser.parse(Data((littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]) + units), file: "utf16.gpx")
        #expect(points.map(\.longitude) == [2.25])
    }
}
