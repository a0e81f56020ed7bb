/// Lower-case hexadecimal text of bytes.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `[0xab, 0x01]` → `"ab01"`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `prefix` followed by the hex text of `bytes`, written straight into the string's storage.
    public static func encode(prefix: StaticString, _ bytes: UnsafeRawBufferPointer) -> String {
        let prefixCount = prefix.utf8CodeUnitCount
        return String(unsafeUninitializedCapacity: prefixCount + 2 * bytes.count) { text in
            prefix.withUTF8Buffer { prefix in _ = text.initialize(fromContentsOf: prefix) }
            var position = prefixCount
            for byte in bytes {
                text[position] = digits[Int(byte >> 4)]
                text[position + 1] = digits[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }

    /// `"ab01"` → `[0xab, 0x01]`; nil for text that is not an even number of hex digits.
    /// (Read in place and written straight into the result: the guarded reader decodes the id of
    /// every picture it loads.)
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { digits -> [UInt8]? in
            guard digits.count.isMultiple(of: 2) else { return nil }
            return values.withUnsafeBufferPointer { values -> [UInt8]? in
                // Looked up, not branched on: hex digits come in random order.
                var invalid: UInt8 = 0
                let bytes = [UInt8](unsafeUninitializedCapacity: digits.count / 2) { bytes, initialized in
                    for index in 0..<digits.count / 2 {
                        let high = values[Int(digits[2 * index])], low = values[Int(digits[2 * index + 1])]
                        invalid |= high | low
                        bytes[index] = high << 4 | low
                    }
                    initialized = digits.count / 2
                }
                return invalid & 0xF0 == 0 ? bytes : nil
            }
        }
    }

    /// The value of each byte as a hex digit; 0xFF for bytes that are not one.
    private static let values: [UInt8] = (0...255).map { value(of: UInt8($0)) ?? 0xFF }

    static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
