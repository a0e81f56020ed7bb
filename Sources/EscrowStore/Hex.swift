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
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(of: utf8[index]), let low = value(of: utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
