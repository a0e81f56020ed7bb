import Crypto
import Foundation

/// Masks a location so it cannot be averaged away: the masked point is a deterministic function
/// of a secret of the escrow home, the flow, and the cell of a secret grid the true location lies
/// in. However often an app asks while the individual stays in a cell, it gets the same point;
/// when they move to another cell, the answer changes, by cell and never by request.
///
/// The masked point lies in a donut around the centre of the cell, from `minimum` + the cell's
/// reach to `accuracy` − the cell's reach (its reach: how far its farthest point lies from its
/// centre), uniform over the donut's area. So, wherever in the cell the truth is, the masked point
/// is at least `minimum` and at most `accuracy` meters from it (great-circle distance). Cells are
/// an eighth of `accuracy` − `minimum` across, so the donut always has room.
///
/// What it does not hide: that the individual moved to another cell (the answer changes), and,
/// over many cells, the path's general shape at the scale of `accuracy`. A position that jitters
/// across a cell's edge alternates between two answers, each within the bounds, whose mean may
/// lie nearer than `minimum`: the host keeps a flow on its last cell until the truth is well
/// inside another (not done here).
///
/// Thread safety: a value.
public struct LocationMask: Sendable {
    public let accuracy: Double
    public let minimum: Double
    /// The flow's keyed hash, its key derived from the secret.
    private let hash: KeyedHash
    private let grid: MaskGrid

    /// A mask for one flow.
    ///
    /// - Parameters:
    ///   - secret: the escrow home's secret (at least 32 bytes), never shown to anyone.
    ///   - flow: the flow's identity: another flow gets other masked points.
    ///   - accuracy: the largest distance, in meters, the masked point may lie from the truth.
    ///   - minimum: the smallest (the t-closeness minimum), below `accuracy`.
    /// - Throws: `LocationMaskError` for a short secret or radii that are not `0 ≤ minimum < accuracy`.
    public init(secret: [UInt8], flow: String, accuracy: Double, minimum: Double) throws(LocationMaskError) {
        guard secret.count >= 32 else { throw .shortSecret(secret.count) }
        guard minimum.isFinite, accuracy.isFinite, minimum >= 0, minimum < accuracy,
              accuracy <= Double.pi * GreatCircle.earthRadius / 2 else {
            throw .invalidRadii(minimum: minimum, accuracy: accuracy)
        }
        self.accuracy = accuracy
        self.minimum = minimum
        hash = KeyedHash(key: Self.code(secret, ["escrow.location-mask.v1", flow]))
        let shift = Self.units(hash.code(["grid"]))
        grid = MaskGrid(size: (accuracy - minimum) / 8, latitudeShift: shift.0, longitudeShift: shift.1)
    }

    /// The masked point for `truth`.
    public func mask(_ truth: GeoPoint) -> GeoPoint {
        let cell = grid.cell(of: truth)
        let (u, v) = cellUnits(band: cell.band, index: cell.index)
        guard let donut = Donut(center: cell.center, inner: minimum + cell.reach, outer: max(minimum + cell.reach, accuracy - cell.reach)) else {
            return cell.center
        }
        return donut.point(u: u, v: v)
    }

    /// The centre of the grid cell `truth` lies in: every point of the cell gets the same
    /// answer, so what is derived from the cell (the population around it) is the same too.
    func cellCenter(of truth: GeoPoint) -> GeoPoint {
        grid.cell(of: truth).center
    }

    /// The two values in 0..<1 a cell's point is drawn from: `units(code(key, ["cell", band,
    /// index]))`, the numbers in decimal as `String` writes them, without building the strings
    /// (the cost of a mask is mostly this code).
    func cellUnits(band: Int, index: Int) -> (Double, Double) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            var count = 0
            func append(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            func append(decimal value: Int) {
                if value < 0 { append(UInt8(ascii: "-")) }
                var magnitude = value.magnitude
                let start = count
                repeat {
                    append(UInt8(ascii: "0") + UInt8(magnitude % 10))
                    magnitude /= 10
                } while magnitude > 0
                buffer[start..<count].reverse()
            }
            for byte in "cell".utf8 { append(byte) }
            append(0)
            append(decimal: band)
            append(0)
            append(decimal: index)
            return hash.code(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count])).withUnsafeBytes(Self.units)
        }
    }

    /// HMAC-SHA256 of `parts` joined by NUL bytes, keyed by `key`: every secret-derived choice
    /// of the module (grid offsets, cells' points, dummy directions) comes from here.
    static func code(_ key: [UInt8], _ parts: [String]) -> [UInt8] {
        KeyedHash(key: key).code(parts)
    }

    /// Two values in 0..<1 from the first 16 bytes of `bytes`.
    static func units(_ bytes: [UInt8]) -> (Double, Double) {
        bytes.withUnsafeBytes(units)
    }

    /// Two values in 0..<1 from the first 16 bytes of `bytes` (at least 16).
    static func units(_ bytes: UnsafeRawBufferPointer) -> (Double, Double) {
        func unit(_ offset: Int) -> Double {
            let word = bytes[offset..<offset + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Double(word >> 11) / Double(UInt64(1) << 53)
        }
        return (unit(0), unit(8))
    }
}

/// HMAC-SHA256 (RFC 2104) with its key's inner and outer blocks hashed once: a code then costs two
/// SHA-256 blocks and no key schedule. The same codes as `HMAC<SHA256>` under that key.
///
/// Thread safety: `@unchecked Sendable` because swift-crypto does not declare `SHA256`
/// `Sendable`; its state is copy-on-write (`update` copies it unless uniquely referenced), and
/// the two hashers kept here are never changed after `init`: each code works on copies.
struct KeyedHash: @unchecked Sendable {
    private let inner: SHA256
    private let outer: SHA256

    init(key: [UInt8]) {
        var block = key.count > SHA256.blockByteCount ? Array(SHA256.hash(data: key)) : key
        block += repeatElement(0, count: SHA256.blockByteCount - block.count)
        var inner = SHA256()
        inner.update(data: block.map { $0 ^ 0x36 })
        var outer = SHA256()
        outer.update(data: block.map { $0 ^ 0x5c })
        self.inner = inner
        self.outer = outer
    }

    /// The code of `message`.
    func code(_ message: UnsafeRawBufferPointer) -> SHA256.Digest {
        var inner = self.inner
        inner.update(bufferPointer: message)
        var outer = self.outer
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize()
    }

    /// The code of `parts` joined by NUL bytes.
    func code(_ parts: [String]) -> [UInt8] {
        Array(Array(parts.joined(separator: "\u{0}").utf8).withUnsafeBytes { code($0) })
    }
}

/// A location mask that cannot be made.
public enum LocationMaskError: Error, Sendable, Equatable, CustomStringConvertible {
    case shortSecret(Int)
    case invalidRadii(minimum: Double, accuracy: Double)

    public var description: String {
        switch self {
        case .shortSecret(let count): "the location secret has \(count) bytes; it needs at least 32"
        case .invalidRadii(let minimum, let accuracy):
            "a location mask needs 0 ≤ minimum (\(minimum) m) < accuracy (\(accuracy) m) ≤ a quarter of the Earth's circumference"
        }
    }
}
