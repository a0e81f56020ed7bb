import EscrowCore
import CExif
import Foundation

/// The fields of an EXIF block that `MediaInfo` uses.
struct ExifSummary: Sendable, Equatable {
    /// DateTimeOriginal (else DateTimeDigitized, else DateTime) as seconds since 1970, UTC.
    var creationDate: Double?
    /// Signed decimal degrees, north positive.
    var latitude: Double?
    /// Signed decimal degrees, east positive.
    var longitude: Double?
    /// PixelXDimension / PixelYDimension: only a fallback when the container has no size.
    var pixelWidth: Int?
    var pixelHeight: Int?
    /// The TIFF Orientation tag (1–8); 5–8 mean the stored picture is rotated a quarter turn.
    var orientation: Int?
}

extension MediaProbe {
    /// Parses an EXIF block with libexif.
    ///
    /// The libexif object is created with `exif_data_new`, its `FOLLOW_SPECIFICATION` option turned
    /// off before loading (with it on, libexif "fixes" a block by adding the tags the specification
    /// requires with invented values, such as XResolution 72), and released before this returns.
    ///
    /// - Parameter payload: `"Exif\0\0"` followed by a TIFF header and its IFDs, as in a JPEG APP1 segment.
    /// - Returns: The summary, or `nil` when libexif finds nothing in the block.
    static func readExif(_ payload: [UInt8]) -> ExifSummary? {
        guard payload.count > 14, payload.count <= Int(UInt32.max), let data = exif_data_new() else { return nil }
        defer { exif_data_unref(data) }
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        payload.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress {
                exif_data_load_data(data, base, UInt32(buffer.count))
            }
        }
        let reader = ExifReader(data: data, order: exif_data_get_byte_order(data))
        var summary = ExifSummary()
        summary.creationDate = reader.creationDate()
        (summary.latitude, summary.longitude) = reader.coordinate()
        summary.pixelWidth = reader.integer(ExifReader.exif, 0xA002)
        summary.pixelHeight = reader.integer(ExifReader.exif, 0xA003)
        summary.orientation = reader.integer(ExifReader.ifd0, 0x0112)
        return summary == ExifSummary() ? nil : summary
    }
}

/// Typed, bounds-checked reads of libexif entries.
///
/// Thread safety: borrows an `ExifData` owned by the caller; use on one thread while it lives.
private struct ExifReader {
    static let ifd0 = 0
    static let exif = 2
    static let gps = 3

    let data: UnsafeMutablePointer<ExifData>
    let order: ExifByteOrder

    func entry(_ ifd: Int, _ tag: UInt32) -> ExifEntry? {
        let ifds = data.pointee.ifd
        let content: UnsafeMutablePointer<ExifContent>?
        switch ifd {
        case Self.ifd0: content = ifds.0
        case Self.exif: content = ifds.2
        case Self.gps: content = ifds.3
        default: content = nil
        }
        guard let content, let entry = exif_content_get_entry(content, ExifTag(rawValue: tag)) else { return nil }
        return entry.pointee
    }

    /// The raw value bytes of an entry of `format`, each component `width` bytes wide, length-checked.
    func values(_ ifd: Int, _ tag: UInt32, format: ExifFormat, width: Int) -> (UnsafeMutablePointer<UInt8>, Int)? {
        guard let entry = entry(ifd, tag), entry.format == format, let bytes = entry.data else { return nil }
        let count = Int(clamping: entry.components)
        guard count > 0, count <= Int(entry.size) / width else { return nil }
        return (bytes, count)
    }

    func string(_ ifd: Int, _ tag: UInt32) -> String? {
        guard let (bytes, count) = values(ifd, tag, format: EXIF_FORMAT_ASCII, width: 1) else { return nil }
        let chars = UnsafeBufferPointer(start: bytes, count: count).prefix { $0 != 0 }
        let text = String(decoding: chars, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    func integer(_ ifd: Int, _ tag: UInt32) -> Int? {
        if let (bytes, _) = values(ifd, tag, format: EXIF_FORMAT_SHORT, width: 2) {
            return Int(exif_get_short(bytes, order))
        }
        if let (bytes, _) = values(ifd, tag, format: EXIF_FORMAT_LONG, width: 4) {
            return Int(exif_get_long(bytes, order))
        }
        return nil
    }

    func rationals(_ ifd: Int, _ tag: UInt32) -> [Double]? {
        guard let (bytes, count) = values(ifd, tag, format: EXIF_FORMAT_RATIONAL, width: 8) else { return nil }
        var result: [Double] = []
        for index in 0 ..< min(count, 3) {
            let value = exif_get_rational(bytes + 8 * index, order)
            guard value.denominator != 0 else { return nil }
            result.append(Double(value.numerator) / Double(value.denominator))
        }
        return result
    }

    /// DateTimeOriginal with OffsetTimeOriginal, falling back to DateTimeDigitized and DateTime
    /// (each with its own offset tag); a date without an offset is taken as UTC.
    func creationDate() -> Double? {
        let candidates: [(ifd: Int, date: UInt32, offset: UInt32)] = [
            (Self.exif, 0x9003, 0x9011),
            (Self.exif, 0x9004, 0x9012),
            (Self.ifd0, 0x0132, 0x9010),
        ]
        for candidate in candidates {
            guard let text = string(candidate.ifd, candidate.date) else { continue }
            let offset = string(Self.exif, candidate.offset)
            if let seconds = ExifDate.seconds(text, offset: offset) { return seconds }
        }
        return nil
    }

    /// GPSLatitude/GPSLongitude (degrees, minutes, seconds) signed by their S/W references.
    func coordinate() -> (Double?, Double?) {
        guard let latitude = degrees(value: 0x0002, ref: 0x0001, negative: "S", limit: 90),
              let longitude = degrees(value: 0x0004, ref: 0x0003, negative: "W", limit: 180)
        else { return (nil, nil) }
        return (latitude, longitude)
    }

    private func degrees(value: UInt32, ref: UInt32, negative: String, limit: Double) -> Double? {
        guard let parts = rationals(Self.gps, value), !parts.isEmpty else { return nil }
        let magnitude = parts.enumerated().reduce(0.0) { $0 + $1.element / pow60($1.offset) }
        guard magnitude.isFinite, magnitude <= limit else { return nil }
        let sign = string(Self.gps, ref)?.uppercased().hasPrefix(negative) == true ? -1.0 : 1.0
        return sign * magnitude
    }

    private func pow60(_ exponent: Int) -> Double {
        exponent == 0 ? 1 : (exponent == 1 ? 60 : 3600)
    }
}

/// Converts EXIF date strings to seconds since 1970.
enum ExifDate {
    /// Parses `"YYYY:MM:DD HH:MM:SS"` (dashes also accepted in the date, optional fraction ignored)
    /// and an optional `"+HH:MM"` offset; without an offset the time is taken as UTC.
    ///
    /// - Returns: Seconds since 1970 (UTC), or `nil` for blank or impossible dates such as
    ///   `"0000:00:00 00:00:00"`.
    static func seconds(_ text: String, offset: String?) -> Double? {
        let digits = text.split(whereSeparator: { ":- T".contains($0) })
        guard digits.count >= 6 else { return nil }
        let fields = digits.prefix(6).map { Int($0.prefix(while: { $0.isASCII && $0.isNumber })) }
        guard fields.allSatisfy({ $0 != nil }) else { return nil }
        let values = fields.compactMap { $0 }
        let (year, month, day, hour, minute, second) = (values[0], values[1], values[2], values[3], values[4], values[5])
        guard (1..<10000).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
        var total = Double(days * 86400 + hour * 3600 + minute * 60 + second)
        if let offset, let seconds = offsetSeconds(offset) { total -= Double(seconds) }
        return total
    }

    /// `"+09:00"` → 32400; `nil` when malformed.
    static func offsetSeconds(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let sign = trimmed.first, sign == "+" || sign == "-" else { return nil }
        let parts = trimmed.dropFirst().split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]),
              (0...14).contains(hours), (0...59).contains(minutes) else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}
