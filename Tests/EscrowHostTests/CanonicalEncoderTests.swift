import Crypto
import EscrowCore
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

/// The output digest encodes every cell as docs/AUDIT.md says, nulls included, for every type.
@Suite struct FrameDigestTests {
    @Test func theDigestIsTheCanonicalEncodingOfEveryCell() throws {
        let frame = try Frame(columns: [
            Column(name: "i", values: .int64([1, 0, -5]), nulls: [false, true, false]),
            Column(name: "d", values: .double([0.5, 2, 0]), nulls: [false, false, true]),
            Column(name: "s", values: .string(["a", "", "ç"])),
            Column(name: "b", values: .bytes([[1, 2], [], Array(repeating: 9, count: 5000)]), nulls: [false, true, false]),
            Column(name: "t", values: .bool([true, false, true]), nulls: [true, false, false]),
        ])
        var reference = CanonicalEncoder()
        reference.append("escrow.frame.v1")
        reference.append(Int64(5))
        reference.append(Int64(3))
        for column in frame.columns {
            reference.append(column.name)
            reference.append(column.type.rawValue)
            for row in 0..<3 {
                switch column.value(at: row) {
                case nil: reference.append(nil as String?)
                case .int64(let value): reference.append(value)
                case .double(let value): reference.append(value)
                case .string(let value): reference.append(value)
                case .bytes(let value): reference.append(bytes: value)
                case .bool(let value): reference.append(Int64(value ? 1 : 0))
                }
            }
        }
        #expect(FrameDigest.sha256(frame) == reference.sha256())
        var changed = frame.columns
        changed[4] = Column(name: "t", values: .bool([true, false, false]), nulls: [true, false, false])
        #expect(FrameDigest.sha256(try Frame(columns: changed)) != reference.sha256())
    }
}
