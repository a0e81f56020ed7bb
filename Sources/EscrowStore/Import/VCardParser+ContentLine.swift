
extension VCardParser {
    /// The properties the parser reads; everything else is skipped.
    enum Property {
        case begin, end, version, name, formattedName, nickname, organization, title
        case phone, email, address, url, birthday, note, uid, categories, kind, appleShowAs, appleLabel
        case other

        /// The property a name (any case) stands for.
        init(_ name: ArraySlice<UInt8>) {
            let candidates: [(StaticString, Property)]
            switch name.count {
            case 1: candidates = [("N", .name)]
            case 2: candidates = [("FN", .formattedName)]
            case 3: candidates = [("TEL", .phone), ("ADR", .address), ("END", .end), ("ORG", .organization),
                                  ("URL", .url), ("UID", .uid)]
            case 4: candidates = [("NOTE", .note), ("BDAY", .birthday), ("KIND", .kind)]
            case 5: candidates = [("EMAIL", .email), ("BEGIN", .begin), ("TITLE", .title)]
            case 7: candidates = [("VERSION", .version)]
            case 8: candidates = [("NICKNAME", .nickname)]
            case 9: candidates = [("X-ABLABEL", .appleLabel)]
            case 10: candidates = [("CATEGORIES", .categories), ("X-ABSHOWAS", .appleShowAs)]
            default: candidates = []
            }
            for (literal, property) in candidates where ASCII.equalsIgnoringCase(name, literal) {
                self = property
                return
            }
            self = .other
        }
    }

    /// One content line, `[group.]NAME[;params]:value`, as ranges into the logical line.
    struct ContentLine {
        var property: Property
        var group: Range<Int>?
        var parameters: Range<Int>
        var value: Range<Int>

        /// Splits a logical line; nil when it has no colon.
        init?(_ line: [UInt8]) {
            var nameEnd = 0
            while nameEnd < line.count, line[nameEnd] != ASCII.colon, line[nameEnd] != ASCII.semicolon { nameEnd += 1 }
            guard nameEnd < line.count else { return nil }
            var nameStart = 0
            group = nil
            if let dot = line[..<nameEnd].lastIndex(of: ASCII.dot) {
                group = 0..<dot
                nameStart = dot + 1
            }
            property = Property(line[nameStart..<nameEnd])
            guard line[nameEnd] == ASCII.semicolon else {
                parameters = nameEnd..<nameEnd
                value = (nameEnd + 1)..<line.count
                return
            }
            var colon: Int?
            var inQuotes = false
            for index in (nameEnd + 1)..<line.count {
                let byte = line[index]
                if byte == ASCII.quote {
                    inQuotes.toggle()
                } else if byte == ASCII.colon, !inQuotes {
                    colon = index
                    break
                }
            }
            if colon == nil { colon = line[(nameEnd + 1)...].firstIndex(of: ASCII.colon) }
            guard let colon else { return nil }
            parameters = (nameEnd + 1)..<colon
            value = (colon + 1)..<line.count
        }
    }
}
