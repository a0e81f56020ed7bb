/// Lexical helpers over SQL text: skipping whitespace and comments, the first keyword, and
/// whether a remainder holds another statement.
///
/// Internal to the host, but for `normalized`, which the fuzzing harness (`Fuzz/`) reaches through
/// `@_spi(Fuzzing)`.
@_spi(Fuzzing) public enum SQLText {
    /// Index of the first byte that is not whitespace, a comment or (when `semicolons`) a `;`.
    static func skipTrivia(_ bytes: [UInt8], from start: Int = 0, semicolons: Bool = false) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C || (semicolons && byte == 0x3B) {
                index += 1
            } else if byte == 0x2D, index + 1 < bytes.count, bytes[index + 1] == 0x2D {  // -- comment
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            } else if byte == 0x2F, index + 1 < bytes.count, bytes[index + 1] == 0x2A {  // /* comment */
                index += 2
                while index < bytes.count, !(bytes[index] == 0x2A && index + 1 < bytes.count && bytes[index + 1] == 0x2F) {
                    index += 1
                }
                index = min(index + 2, bytes.count)
            } else {
                break
            }
        }
        return index
    }

    /// The statement's first keyword, upper-cased (empty when there is none).
    static func firstKeyword(_ sql: String) -> String {
        let bytes = Array(sql.utf8)
        var index = skipTrivia(bytes)
        var keyword = [UInt8]()
        while index < bytes.count {
            let byte = bytes[index]
            let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
            guard isLetter else { break }
            keyword.append(byte >= 0x61 ? byte - 0x20 : byte)
            index += 1
        }
        return String(decoding: keyword, as: UTF8.self)
    }

    /// Whether `remainder` (what follows the first statement) holds anything but trivia and `;`.
    static func holdsAnotherStatement(_ remainder: [UInt8]) -> Bool {
        skipTrivia(remainder, semicolons: true) < remainder.count
    }

    /// The identifiers of the statement (bare or double-quoted), outside string literals and
    /// comments, in order.
    static func identifiers(_ sql: String) -> [String] {
        let bytes = Array(sql.utf8)
        var result: [String] = []
        var index = 0
        func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte >= 0x80
        }
        while index < bytes.count {
            index = skipTrivia(bytes, from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == 0x27 || byte == 0x22 || byte == 0x60 || byte == 0x5B {  // ' " ` [
                let close: UInt8 = byte == 0x5B ? 0x5D : byte
                var end = index + 1
                var text = [UInt8]()
                while end < bytes.count {
                    if bytes[end] == close {
                        if close != 0x5D, end + 1 < bytes.count, bytes[end + 1] == close {
                            text.append(close)
                            end += 2
                            continue
                        }
                        break
                    }
                    text.append(bytes[end])
                    end += 1
                }
                if byte != 0x27 { result.append(String(decoding: text, as: UTF8.self)) }
                index = end + 1
            } else if isWordByte(byte) {
                var end = index
                while end < bytes.count, isWordByte(bytes[end]) { end += 1 }
                result.append(String(decoding: bytes[index..<end], as: UTF8.self))
                index = end
            } else {
                index += 1
            }
        }
        return result
    }

    /// The statement with comments removed and whitespace reduced to one space between tokens,
    /// trailing semicolons dropped: two texts that differ only in layout normalize the same,
    /// any other change (a keyword's case, a literal, an identifier) does not.
    @_spi(Fuzzing) public static func normalized(_ sql: String) -> String {
        tokens(sql).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
    }

    /// The statement's tokens, comments and whitespace left out, trailing semicolons dropped: words,
    /// quoted strings and identifiers (verbatim, quotes included), runs of operator characters,
    /// and single punctuation bytes.
    static func tokens(_ sql: String) -> [ArraySlice<UInt8>] {
        let bytes = Array(sql.utf8)
        var tokens: [ArraySlice<UInt8>] = []
        var index = 0
        func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x24 || byte >= 0x80
        }
        let operatorBytes: Set<UInt8> = Set("<>=!|-&+*/%~^".utf8)
        while true {
            index = skipTrivia(bytes, from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            var end = index + 1
            if byte == 0x27 || byte == 0x22 || byte == 0x60 || byte == 0x5B {  // quoted: kept verbatim
                let close: UInt8 = byte == 0x5B ? 0x5D : byte
                while end < bytes.count {
                    if bytes[end] == close {
                        if close != 0x5D, end + 1 < bytes.count, bytes[end + 1] == close {
                            end += 2
                            continue
                        }
                        end += 1
                        break
                    }
                    end += 1
                }
            } else if isWordByte(byte) {
                while end < bytes.count, isWordByte(bytes[end]) || (bytes[end] == 0x2E && byte >= 0x30 && byte <= 0x39) {
                    end += 1
                }
            } else if operatorBytes.contains(byte) {
                while end < bytes.count, operatorBytes.contains(bytes[end]),
                      !(bytes[end] == 0x2D && end + 1 < bytes.count && bytes[end + 1] == 0x2D),
                      !(bytes[end] == 0x2F && end + 1 < bytes.count && bytes[end + 1] == 0x2A) {
                    end += 1
                }
            }
            tokens.append(bytes[index..<min(end, bytes.count)])
            index = end
        }
        while tokens.last?.elementsEqual([0x3B]) == true { tokens.removeLast() }
        return tokens
    }
}
