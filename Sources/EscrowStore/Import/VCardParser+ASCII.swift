
extension VCardParser {
    /// ASCII bytes the parser looks for.
    enum ASCII {
        static let tab: UInt8 = 0x09
        static let lf: UInt8 = 0x0A
        static let cr: UInt8 = 0x0D
        static let space: UInt8 = 0x20
        static let quote: UInt8 = 0x22
        static let comma: UInt8 = 0x2C
        static let dash: UInt8 = 0x2D
        static let dot: UInt8 = 0x2E
        static let colon: UInt8 = 0x3A
        static let semicolon: UInt8 = 0x3B
        static let equals: UInt8 = 0x3D
        static let upperT: UInt8 = 0x54
        static let lowerT: UInt8 = 0x74
        static let backslash: UInt8 = 0x5C
        static let lowerN: UInt8 = 0x6E
        static let upperN: UInt8 = 0x4E

        static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }
        static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab || byte == cr || byte == lf }
        static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        static func uppercased(_ byte: UInt8) -> UInt8 { byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte }

        /// The value of a hexadecimal digit (either case), or nil.
        static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x41...0x46: return byte - 0x41 + 10
            case 0x61...0x66: return byte - 0x61 + 10
            default: return nil
            }
        }

        /// Whether `bytes` equals the ASCII `literal`, ignoring case. `literal` must be uppercase.
        static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ literal: StaticString) -> Bool {
            guard bytes.count == literal.utf8CodeUnitCount else { return false }
            return literal.withUTF8Buffer { expected in
                var index = bytes.startIndex
                for byte in expected {
                    if uppercased(bytes[index]) != byte { return false }
                    index += 1
                }
                return true
            }
        }

        /// Whether `bytes` begins with the ASCII `literal`, ignoring case. `literal` must be uppercase.
        static func hasPrefixIgnoringCase(_ bytes: ArraySlice<UInt8>, _ literal: StaticString) -> Bool {
            guard bytes.count >= literal.utf8CodeUnitCount else { return false }
            let prefix = bytes.prefix(literal.utf8CodeUnitCount)
            return equalsIgnoringCase(prefix, literal)
        }

        /// Whether `bytes` contains the ASCII `literal`, ignoring case. `literal` must be uppercase.
        static func containsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ literal: StaticString) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard length > 0, bytes.count >= length else { return false }
            var start = bytes.startIndex
            while start + length <= bytes.endIndex {
                if equalsIgnoringCase(bytes[start..<(start + length)], literal) { return true }
                start += 1
            }
            return false
        }

        /// `bytes` without leading and trailing spaces, tabs, CRs and LFs.
        static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            var start = bytes.startIndex
            var end = bytes.endIndex
            while start < end, isWhitespace(bytes[start]) { start += 1 }
            while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
            return bytes[start..<end]
        }
    }
}
