
extension VCardParser {
    /// Turns the bytes of one value into text: unescapes, normalises line breaks, trims and decodes.
    struct ValueDecoder {
        /// The value's charset; nil means UTF-8 (with a windows-1252 fallback in vCard 2.1).
        let charset: Charset?
        let version21: Bool
        let explicitCharset: Bool

        /// The decoded text; `.some(nil)` when empty, nil when the bytes are not valid in the charset.
        func decode(_ bytes: ArraySlice<UInt8>) -> String?? {
            let unescaped = ASCII.trimmed(Self.unescaped(bytes, version21: version21))
            if unescaped.isEmpty { return .some(nil) }
            if !unescaped.contains(where: { $0 >= 0x80 }) { return .some(String(decoding: unescaped, as: UTF8.self)) }
            switch charset {
            case .windows1252:
                return .some(Self.windows1252(unescaped))
            case .utf8:
                return String(validating: unescaped, as: UTF8.self).map { .some($0) }
            case nil:
                if let text = String(validating: unescaped, as: UTF8.self) { return .some(text) }
                return version21 ? .some(Self.windows1252(unescaped)) : nil
            }
        }

        /// Resolves backslash escapes (`\,` `\;` `\:` `\\`, and `\n` `\N` outside 2.1) and turns CRLF and CR into LF.
        static func unescaped(_ bytes: ArraySlice<UInt8>, version21: Bool) -> ArraySlice<UInt8> {
            guard bytes.contains(where: { $0 == ASCII.backslash || $0 == ASCII.cr }) else { return bytes }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var index = bytes.startIndex
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == ASCII.cr {
                    output.append(ASCII.lf)
                    index += 1
                    if index < bytes.endIndex, bytes[index] == ASCII.lf { index += 1 }
                    continue
                }
                guard byte == ASCII.backslash, index + 1 < bytes.endIndex else {
                    output.append(byte)
                    index += 1
                    continue
                }
                let next = bytes[index + 1]
                switch next {
                case ASCII.comma, ASCII.semicolon, ASCII.colon, ASCII.backslash:
                    output.append(next)
                case ASCII.lowerN, ASCII.upperN:
                    if version21 {
                        output.append(byte)
                        output.append(next)
                    } else {
                        output.append(ASCII.lf)
                    }
                default:
                    output.append(byte)
                    output.append(next)
                }
                index += 2
            }
            return output[...]
        }

        /// windows-1252 bytes as text (ISO-8859-1 is read the same way).
        static func windows1252(_ bytes: ArraySlice<UInt8>) -> String {
            var scalars = String.UnicodeScalarView()
            for byte in bytes {
                if byte >= 0x80, byte < 0xA0, let scalar = Unicode.Scalar(windows1252High[Int(byte - 0x80)]) {
                    scalars.append(scalar)
                } else {
                    scalars.append(Unicode.Scalar(byte))
                }
            }
            return String(scalars)
        }

        /// Code points of windows-1252 bytes 0x80–0x9F (undefined bytes map to the C1 control of the same value).
        static let windows1252High: [UInt32] = [
            0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
            0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
            0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
            0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
        ]
    }
}
