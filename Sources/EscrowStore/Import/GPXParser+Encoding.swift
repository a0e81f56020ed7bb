import Foundation

// Invalid UTF-8 is refused before the bytes reach `XMLParser`.
//
// libxml2 parses in recovery mode under `XMLParser` and hands invalid UTF-8 in a document it reads
// as UTF-8 straight to FoundationXML, which force-unwraps the strings it makes of names, comments
// and text: a GPX file with one bad byte in a comment crashed the import (found by fuzzing,
// docs/RELIABILITY.md). Documents in another encoding are transcoded by libxml2 and unaffected.

extension GPXParser {
    /// The offset of the first byte that is not valid UTF-8, when libxml2 would read `bytes` as
    /// UTF-8; nil when they are valid or in another encoding.
    static func invalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
        guard isReadAsUTF8(bytes) else { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    /// The first bytes by which libxml2 detects a document in UTF-16, UCS-4 or EBCDIC (XML 1.0
    /// appendix F): byte-order marks, and `<` or `<?` in those encodings.
    private static let otherEncodingStarts: [[UInt8]] = [
        [0xFE, 0xFF], [0xFF, 0xFE],
        [0x00, 0x3C, 0x00, 0x3F], [0x3C, 0x00, 0x3F, 0x00],
        [0x00, 0x00, 0x00, 0x3C], [0x3C, 0x00, 0x00, 0x00], [0x00, 0x00, 0x3C, 0x00], [0x00, 0x3C, 0x00, 0x00],
        [0x4C, 0x6F, 0xA7, 0x94],
    ]

    /// Whether libxml2 reads `bytes` as UTF-8: they do not start like UTF-16, UCS-4 or EBCDIC, and
    /// the XML declaration, if any, names no encoding, UTF-8 or UTF-16 (libxml2 ignores a UTF-16
    /// label on a document whose first bytes are 8-bit, and reads it as UTF-8).
    static func isReadAsUTF8(_ bytes: [UInt8]) -> Bool {
        if otherEncodingStarts.contains(where: { bytes.starts(with: $0) }) { return false }
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard let name = declaredEncoding(bytes[start...]) else { return true }
        return ["utf-8", "utf8", "utf-16", "utf16"].contains(name.lowercased())
    }

    /// The encoding named by the XML declaration at the start of `bytes`, read by XML 1.0's
    /// grammar (`<?xml version="1.x" encoding="Name"`); nil when there is no declaration, it names
    /// no encoding or it does not follow the grammar (then libxml2 does not switch encodings
    /// either: a lenient reading here would let invalid UTF-8 through).
    static func declaredEncoding(_ bytes: ArraySlice<UInt8>) -> String? {
        var scanner = DeclarationScanner(bytes: bytes)
        guard scanner.skip("<?xml"), scanner.skipSpaces(), scanner.skip("version"), scanner.skipEquals(),
              let version = scanner.quoted(), version.starts(with: Array("1.".utf8)), version.count > 2,
              version.dropFirst(2).allSatisfy({ (0x30...0x39).contains($0) }),
              scanner.skipSpaces(), scanner.skip("encoding"), scanner.skipEquals(),
              let name = scanner.quoted(), let first = name.first,
              (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first),
              name.allSatisfy({ byte in
                  (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                      || byte == 0x2E || byte == 0x5F || byte == 0x2D
              })
        else { return nil }
        return String(decoding: name, as: UTF8.self)
    }
}

/// Reads the parts of an XML declaration, each step returning whether it matched.
private struct DeclarationScanner {
    var bytes: ArraySlice<UInt8>

    mutating func skip(_ literal: String) -> Bool {
        guard bytes.starts(with: literal.utf8) else { return false }
        bytes = bytes.dropFirst(literal.utf8.count)
        return true
    }

    /// Skips one or more XML white space characters; false when there is none.
    mutating func skipSpaces() -> Bool {
        let before = bytes.count
        bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        return bytes.count < before
    }

    /// Skips `S? '=' S?`.
    mutating func skipEquals() -> Bool {
        _ = skipSpaces()
        guard skip("=") else { return false }
        _ = skipSpaces()
        return true
    }

    /// A value in single or double quotes, without them.
    mutating func quoted() -> ArraySlice<UInt8>? {
        guard let quote = bytes.first, quote == 0x22 || quote == 0x27 else { return nil }
        let value = bytes.dropFirst().prefix { $0 != quote }
        guard value.endIndex < bytes.endIndex else { return nil }
        bytes = bytes[(value.endIndex + 1)...]
        return value
    }
}
