import Crypto
@testable import EscrowHost
import EscrowStore
import Testing

/// The streaming encoder hashes exactly the documented byte encoding (docs/AUDIT.md), whatever
/// the sizes: flows and audit entries written by earlier builds must keep their hashes.
@Suite struct CanonicalEncoderTests {
    @Test(arguments: [0, 5, 1023, 1024, 16 * 1024, 100_000])
    func theHashIsSHA256OfTheTaggedLengthPrefixedEncoding(blobSize: Int) {
        let blob = (0..<blobSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var encoder = CanonicalEncoder()
        var reference: [UInt8] = []
        func length(_ count: Int) -> [UInt8] { withUnsafeBytes(of: UInt64(count).bigEndian, Array.init) }
        for round in 0..<300 {
            let text = "row \(round) ünïcode"
            encoder.append(text)
            reference += [0x01] + length(text.utf8.count) + Array(text.utf8)
            encoder.append(nil as String?)
            reference += [0x00]
            encoder.append(Int64(round) - 7)
            reference += [0x02] + withUnsafeBytes(of: (Int64(round) - 7).bigEndian, Array.init)
            encoder.append(Double(round) / 3)
            reference += [0x03] + withUnsafeBytes(of: (Double(round) / 3).bitPattern.bigEndian, Array.init)
            if round % 50 == 0 {
                encoder.append(bytes: blob)
                reference += [0x04] + length(blob.count) + blob
            }
        }
        #expect(encoder.sha256() == Hex.encode(SHA256.hash(data: reference)))
    }
}
