import Crypto
import EscrowCore
@testable import EscrowHost
import EscrowStore
import EscrowTestSupport
import Logging
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
                let digest = Array(SHA256.hash(data: blob))
                encoder.append(byteCount: blob.count, sha256: digest)
                reference += [0x05] + length(blob.count) + digest
            }
        }
        #expect(encoder.sha256() == Hex.encode(SHA256.hash(data: reference)))
    }
}

/// The output digest encodes every cell as docs/AUDIT.md says, nulls included, for every type;
/// binary cells by their length and SHA-256, whether that is computed, spread over the
/// processors, or known from the asset store.
@Suite struct FrameDigestTests {
    /// The digest as docs/AUDIT.md defines it, cell by cell through `Column.value(at:)`.
    static func reference(_ frame: Frame) -> String {
        var reference = CanonicalEncoder()
        reference.append("escrow.frame.v2")
        reference.append(Int64(frame.columns.count))
        reference.append(Int64(frame.rowCount))
        for column in frame.columns {
            reference.append(column.name)
            reference.append(column.type.rawValue)
            var cells = CanonicalEncoder()
            for row in 0..<frame.rowCount {
                switch column.value(at: row) {
                case nil: cells.append(nil as String?)
                case .int64(let value): cells.append(value)
                case .double(let value): cells.append(value)
                case .string(let value): cells.append(value)
                case .bytes(let value): cells.append(byteCount: value.count, sha256: Array(SHA256.hash(data: value)))
                case .bool(let value): cells.append(Int64(value ? 1 : 0))
                }
            }
            reference.append(digest: cells.digest())
        }
        return reference.sha256()
    }

    @Test func theDigestIsTheCanonicalEncodingOfEveryCell() throws {
        let frame = try Frame(columns: [
            Column(name: "i", values: .int64([1, 0, -5]), nulls: [false, true, false]),
            Column(name: "d", values: .double([0.5, 2, 0]), nulls: [false, false, true]),
            Column(name: "s", values: .string(["a", "", "ç"])),
            Column(name: "b", values: .bytes([[1, 2], [], Array(repeating: 9, count: 5000)]), nulls: [false, true, false]),
            Column(name: "t", values: .bool([true, false, true]), nulls: [true, false, false]),
        ])
        #expect(FrameDigest.sha256(frame) == Self.reference(frame))
        var changed = frame.columns
        changed[4] = Column(name: "t", values: .bool([true, false, false]), nulls: [true, false, false])
        #expect(FrameDigest.sha256(try Frame(columns: changed)) != Self.reference(frame))
        changed = frame.columns
        changed[3] = Column(name: "b", values: .bytes([[1, 3], [], Array(repeating: 9, count: 5000)]), nulls: [false, true, false])
        #expect(FrameDigest.sha256(try Frame(columns: changed)) != Self.reference(frame))
    }

    @Test func megabytesOfPicturesHashedOnAllProcessorsGiveTheSameDigest() throws {
        // Enough bytes to take the parallel path, in cells of uneven sizes, with nulls.
        var cells: [[UInt8]] = []
        var nulls: [Bool] = []
        var total = 0
        var seed: UInt64 = 7
        while total <= FrameDigest.parallelThreshold * 2 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let cell = (0..<(1000 + Int(seed >> 50))).map { UInt8(truncatingIfNeeded: Int(seed >> 33) &+ $0) }
            total += cell.count
            cells.append(cell)
            nulls.append(cells.count % 17 == 0)
        }
        let frame = try Frame(columns: [Column(name: "picture", values: .bytes(cells), nulls: nulls)])
        #expect(FrameDigest.sha256(frame) == Self.reference(frame))
        cells[cells.count / 2][10] ^= 1
        #expect(FrameDigest.sha256(try Frame(columns: [Column(name: "picture", values: .bytes(cells), nulls: nulls)]))
                != Self.reference(frame))
    }

    @Test func manyCellsHashedColumnByColumnInParallelGiveTheSameDigest() throws {
        let rows = FrameDigest.parallelCells
        let frame = try Frame(columns: [
            Column(name: "name", values: .string((0..<rows).map { "contact \($0)" })),
            Column(name: "phone", values: .string((0..<rows).map { "+1 555 \($0)" }), nulls: (0..<rows).map { $0 % 9 == 0 }),
            Column(name: "n", values: .int64((0..<rows).map { Int64($0) })),
        ])
        #expect(FrameDigest.sha256(frame) == Self.reference(frame))
        // The same cells under other column names, or in another column order, differ.
        let renamed = try Frame(columns: [frame.columns[1], frame.columns[0], frame.columns[2]])
        #expect(FrameDigest.sha256(renamed) != Self.reference(frame))
    }

    @Test func onlyTheVeryBufferReadFromTheStoreUsesItsKnownDigest() throws {
        let picture = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var known = KnownDigests()
        known.record(picture, assetID: AssetStore.assetID(of: picture))
        #expect(known.sha256(of: picture) == Array(SHA256.hash(data: picture)))
        var edited = picture
        edited[0] ^= 0xFF
        #expect(known.sha256(of: edited) == nil, "an edited copy has storage of its own")
        #expect(known.sha256(of: Array(picture.dropLast())) == nil)
        #expect(known.sha256(of: Array(picture)) != nil, "the same array, passed along, is the same buffer")

        // A frame mixing the untouched picture and an edited one digests like hashing both.
        let frame = try Frame(columns: [Column(name: "picture", values: .bytes([picture, edited, picture]))])
        #expect(FrameDigest.sha256(frame, known: known) == Self.reference(frame))

        // An id that is not a SHA-256 is not trusted.
        var odd = KnownDigests()
        odd.record(picture, assetID: "not-a-hash")
        #expect(odd.isEmpty)
    }

    @Test func theAuditedDigestOfPicturesPassedThroughIsTheDigestOfWhatTheAppGot() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: Logger(label: "test"))
            let result = try await host.runApproving(app: "org.example.gallery", purpose: "backup",
                                                     access: "SELECT id, asset FROM Photos ORDER BY id", compute: "identity")
            #expect(result.output.rowCount == SampleRecords.photos.count)
            #expect(result.auditEntry.facts.outputSHA256 == Self.reference(result.output))
        }
    }
}
