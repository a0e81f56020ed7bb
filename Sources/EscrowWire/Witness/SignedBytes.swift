/// The canonical encoding of the values a head's signatures cover, as docs/AUDIT.md describes it
/// for audit entries: text is `0x01`, an 8-byte big-endian length and the UTF-8 bytes; an integer
/// is `0x02` and 8 bytes big-endian. So no two different heads sign the same bytes.
struct SignedBytes {
    private(set) var bytes: [UInt8] = []

    init(_ domain: String) {
        append(domain)
    }

    mutating func append(_ text: String) {
        bytes.append(0x01)
        appendBigEndian(UInt64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    mutating func append(_ number: Int) {
        bytes.append(0x02)
        appendBigEndian(UInt64(bitPattern: Int64(number)))
    }

    private mutating func appendBigEndian(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
