/// The contents of a place table file, as read and checked, before the table builds its indexes.
///
/// File format, version 1, written by scripts/make-places.py (every integer little-endian):
///
///     header, 24 bytes
///         0   4  magic "EPLT"
///         4   2  version, 1
///         6   2  country count C (at most 255)
///         8   2  region count R
///        10   2  zero
///        12   4  place count P
///        16   4  name threshold T: exactly the places with population >= T carry a name
///        20   4  byte length N of the name section
///     countries, C entries: ISO 3166 alpha-2 code (2 ASCII bytes), name length (1 byte), name (UTF-8)
///     regions, R entries: country index (1 byte), admin1 code length (1 byte), admin1 code (ASCII;
///         empty for a country's places that have none)
///     places, P records of 12 bytes: latitude Int24 and longitude Int24 in units of 1e-4 degree,
///         population UInt32, region index UInt16
///     names, N bytes: for each place with population >= T, in place order, a length byte and the
///         name (UTF-8)
///     CRC-32 (IEEE 802.3, zlib's) of every byte before it, 4 bytes
///
/// Every count, index, coordinate and length is checked, so hostile bytes give a
/// `PlaceTableError`, never a crash.
struct PlaceFile: Sendable {
    static let magic: [UInt8] = Array("EPLT".utf8)
    static let headerSize = 24
    static let placeRecordSize = 12

    var countryCodes: [String] = []
    var countryNames: [String] = []
    /// Per region: "FR.11" (or "FR" when the admin1 code is empty) and its country's index.
    var regionCodes: [String] = []
    var regionCountries: [Int] = []
    var points: [GeoPoint] = []
    var populations: [Int] = []
    var regions: [Int] = []
    var names: [String?] = []
    var nameThreshold = 0

    init(bytes: [UInt8]) throws(PlaceTableError) {
        var reader = ByteReader(bytes: bytes)
        guard bytes.count >= Self.magic.count else {
            throw .truncated(section: "header", needed: Self.headerSize + 4, available: bytes.count)
        }
        guard Array(bytes[0..<Self.magic.count]) == Self.magic else { throw .notAPlaceTable }
        guard bytes.count >= Self.headerSize + 4 else {
            throw .truncated(section: "header", needed: Self.headerSize + 4, available: bytes.count)
        }
        reader.offset = Self.magic.count
        let version = try reader.uint16("header")
        guard version == PlaceTable.formatVersion else { throw .unsupportedVersion(version) }
        let countryCount = try reader.uint16("header")
        let regionCount = try reader.uint16("header")
        guard try reader.uint16("header") == 0 else { throw .invalid("the header's reserved field is not zero") }
        let placeCount = try reader.uint32("header")
        nameThreshold = try reader.uint32("header")
        let nameBytes = try reader.uint32("header")
        guard countryCount <= 255 else { throw .invalid("\(countryCount) countries (at most 255)") }

        let body = bytes.count - 4
        let stored = UInt32(bytes[body]) | UInt32(bytes[body + 1]) << 8 | UInt32(bytes[body + 2]) << 16 | UInt32(bytes[body + 3]) << 24
        let computed = CRC32.checksum(bytes[0..<body])
        guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }
        reader.end = body

        for _ in 0..<countryCount {
            let code = try reader.bytes(2, "country table")
            guard code.allSatisfy({ (0x41...0x5A).contains($0) }) else { throw .invalid("a country code is not two capital letters") }
            countryCodes.append(String(decoding: code, as: UTF8.self))
            countryNames.append(try reader.shortString("country table"))
        }
        for _ in 0..<regionCount {
            let country = try reader.uint8("region table")
            guard country < countryCount else { throw .invalid("region \(regionCodes.count) names country \(country) of \(countryCount)") }
            let admin1 = try reader.shortString("region table")
            regionCodes.append(admin1.isEmpty ? countryCodes[country] : "\(countryCodes[country]).\(admin1)")
            regionCountries.append(country)
        }

        let placeBytes = placeCount.multipliedReportingOverflow(by: Self.placeRecordSize)
        guard !placeBytes.overflow, placeBytes.partialValue <= reader.remaining else {
            throw .truncated(section: "places", needed: placeBytes.overflow ? Int.max : placeBytes.partialValue, available: reader.remaining)
        }
        points.reserveCapacity(placeCount)
        populations.reserveCapacity(placeCount)
        regions.reserveCapacity(placeCount)
        for index in 0..<placeCount {
            let latitude = try reader.int24("places"), longitude = try reader.int24("places")
            let population = try reader.uint32("places"), region = try reader.uint16("places")
            guard (-900_000...900_000).contains(latitude), (-1_800_000..<1_800_000).contains(longitude),
                  let point = GeoPoint(latitude: Double(latitude) / 10_000, longitude: Double(longitude) / 10_000) else {
                throw .invalid("place \(index) has coordinates \(latitude), \(longitude) (1e-4 degrees) out of range")
            }
            guard region < regionCount else { throw .invalid("place \(index) names region \(region) of \(regionCount)") }
            points.append(point)
            populations.append(population)
            regions.append(region)
        }

        guard nameBytes == reader.remaining else {
            throw nameBytes > reader.remaining
                ? .truncated(section: "names", needed: nameBytes, available: reader.remaining)
                : .invalid("\(reader.remaining - nameBytes) bytes follow the names")
        }
        names.reserveCapacity(placeCount)
        for population in populations {
            names.append(population >= nameThreshold ? try reader.shortString("names") : nil)
        }
        guard reader.remaining == 0 else { throw .invalid("\(reader.remaining) bytes follow the names") }
    }
}

/// Reads little-endian integers and length-prefixed strings, throwing when a section runs past
/// `end`.
private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0
    var end: Int

    init(bytes: [UInt8]) {
        self.bytes = bytes
        end = bytes.count
    }

    var remaining: Int { end - offset }

    mutating func bytes(_ count: Int, _ section: String) throws(PlaceTableError) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw .truncated(section: section, needed: count, available: remaining) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func uint8(_ section: String) throws(PlaceTableError) -> Int {
        Int(try bytes(1, section).first ?? 0)
    }

    mutating func uint16(_ section: String) throws(PlaceTableError) -> Int {
        let raw = try bytes(2, section)
        return Int(raw[raw.startIndex]) | Int(raw[raw.startIndex + 1]) << 8
    }

    mutating func uint32(_ section: String) throws(PlaceTableError) -> Int {
        let raw = try bytes(4, section)
        return (0..<4).reduce(0) { $0 | Int(raw[raw.startIndex + $1]) << (8 * $1) }
    }

    mutating func int24(_ section: String) throws(PlaceTableError) -> Int {
        let raw = try bytes(3, section)
        let unsigned = Int(raw[raw.startIndex]) | Int(raw[raw.startIndex + 1]) << 8 | Int(raw[raw.startIndex + 2]) << 16
        return unsigned >= 1 << 23 ? unsigned - (1 << 24) : unsigned
    }

    /// A length byte, then that many bytes of UTF-8.
    mutating func shortString(_ section: String) throws(PlaceTableError) -> String {
        let length = try uint8(section)
        let raw = try bytes(length, section)
        guard let text = String(validating: raw, as: UTF8.self) else { throw .invalid("a string of the \(section) is not UTF-8") }
        return text
    }
}

/// CRC-32 as zlib computes it (IEEE 802.3, reflected, polynomial 0xEDB88320).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { byte in
        var value = UInt32(byte)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
