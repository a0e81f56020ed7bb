// Markup that FoundationXML's `XMLParser` cannot survive is refused before parsing.
//
// FoundationXML makes a string of a processing instruction's data with `strlen`, and libxml2 passes
// no data at all (a null pointer) for `<?name?>`: the import crashed on such a line (found by
// fuzzing, docs/RELIABILITY.md). A document type declaration is refused too: entities declared in
// one can expand to such an instruction where no byte of the file shows it, and GPX files have none.

extension GPXParser {
    /// Why `bytes` cannot be handed to `XMLParser`, with the line; nil when they can.
    ///
    /// The search is on bytes, so a `<?name?>` or `<!DOCTYPE` inside a comment or CDATA section is
    /// refused too. Documents in UTF-16 or UCS-4 are searched with their zero bytes removed, which
    /// keeps their ASCII characters, line breaks included, in order.
    static func unreadableMarkup(_ bytes: [UInt8]) -> (line: Int, reason: String)? {
        let view = isWide(bytes) ? bytes.filter { $0 != 0 } : bytes
        var index = 0
        while let open = view[index...].firstIndex(of: 0x3C) {  // <
            index = open + 1
            if view[index...].starts(with: Array("!DOCTYPE".utf8)) {
                return (line(of: open, in: view),
                        "a <!DOCTYPE> declaration: GPX files have none, and entities declared in one are not read;"
                            + " remove it (with its [...] part) or export the file again")
            }
            guard index < view.count, view[index] == 0x3F else { continue }  // ?
            let name = view[(index + 1)...].prefix { $0 != 0x3F && $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x0A }
            if !name.isEmpty, view[name.endIndex...].starts(with: [0x3F, 0x3E]) {
                return (line(of: open, in: view),
                        "the processing instruction <?\(String(decoding: name, as: UTF8.self))?> has no data, which"
                            + " the XML reader of this platform cannot handle; remove it or export the file again")
            }
        }
        return nil
    }

    /// Whether libxml2 reads `bytes` in a 16- or 32-bit encoding (UTF-16, UCS-4), by their first bytes.
    private static func isWide(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || bytes.prefix(4).contains(0)
    }

    /// The line (from 1) of the byte at `offset`.
    private static func line(of offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
    }
}
