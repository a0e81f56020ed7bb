@testable import EscrowStore
import Testing

@Suite struct HexTests {
    @Test(arguments: [
        ("", [UInt8]()),
        ("00", [0x00]),
        ("ab01", [0xAB, 0x01]),
        ("AB01", [0xAB, 0x01]),
        ("0123456789abcdefABCDEF", [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xAB, 0xCD, 0xEF]),
    ])
    func decodesHexDigits(text: String, bytes: [UInt8]) {
        #expect(Hex.decode(text) == bytes)
    }

    @Test(arguments: ["a", "abc", "0g", "g0", "zz", "ab 01", "é0", "0x01"])
    func refusesWhatIsNotAnEvenNumberOfHexDigits(text: String) {
        #expect(Hex.decode(text) == nil)
    }

    @Test func encodingRoundTrips() {
        let bytes = (0...255).map(UInt8.init)
        let text = Hex.encode(bytes)
        #expect(text.count == 512)
        #expect(text.hasPrefix("000102"))
        #expect(text.hasSuffix("fdfeff"))
        #expect(Hex.decode(text) == bytes)
        let prefixed = bytes.withUnsafeBytes { Hex.encode(prefix: "vcard-", UnsafeRawBufferPointer(rebasing: $0.prefix(3))) }
        #expect(prefixed == "vcard-000102")
    }
}
