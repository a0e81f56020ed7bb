import EscrowCore

/// Checks and conversions shared by the location parsers (GPX, GeoJSON, CSV), so that the three
/// formats accept the same coordinates and the same timestamps.
///
/// Thread safety: stateless; safe to call from any thread.
enum LocationFields {
    /// Latitudes a `Location` row may hold, in degrees.
    static let latitudeRange: ClosedRange<Double> = -90...90
    /// Longitudes a `Location` row may hold, in degrees.
    static let longitudeRange: ClosedRange<Double> = -180...180
    /// Epoch numbers above this are milliseconds, not seconds (1e11 s is the year 5138).
    static let millisecondThreshold = 1e11

    /// Says what is wrong with a latitude/longitude pair, or nil when both are in range.
    ///
    /// - Returns: a reason suitable for `ImportError.reason`, or nil.
    static func coordinateProblem(latitude: Double, longitude: Double) -> String? {
        if !latitude.isFinite || !latitudeRange.contains(latitude) {
            return "latitude \(latitude) is out of range: latitudes are degrees from -90 to 90"
                + " (check that latitude and longitude are not swapped)"
        }
        if !longitude.isFinite || !longitudeRange.contains(longitude) {
            return "longitude \(longitude) is out of range: longitudes are degrees from -180 to 180"
                + " (check that latitude and longitude are not swapped)"
        }
        return nil
    }

    /// Reads a decimal number, allowing surrounding spaces; rejects NaN, infinities and hex floats.
    ///
    /// - Returns: the value, or nil when the text is not a finite decimal number.
    static func number(_ text: some StringProtocol) -> Double? {
        let trimmed = trimmingSpaces(text)
        guard let first = trimmed.utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+")
                || first == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              !trimmed.utf8.contains(UInt8(ascii: "x")), !trimmed.utf8.contains(UInt8(ascii: "X")),
              let value = Double(trimmed), value.isFinite
        else { return nil }
        return value
    }

    /// Reads a timestamp written as ISO 8601 text or as a number of seconds since 1970
    /// (milliseconds when the number is above 1e11).
    ///
    /// - Returns: seconds since 1970 (UTC), or nil when the text is neither.
    static func timestamp(_ text: some StringProtocol) -> Double? {
        let trimmed = trimmingSpaces(text)
        if let seconds = Timestamp.parse(trimmed) { return seconds }
        guard let number = number(trimmed) else { return nil }
        return epochSeconds(number)
    }

    /// Interprets a number as seconds since 1970, or as milliseconds when it is above 1e11.
    static func epochSeconds(_ number: Double) -> Double {
        abs(number) > millisecondThreshold ? number / 1000 : number
    }

    /// The text without leading and trailing spaces, tabs and line breaks.
    static func trimmingSpaces(_ text: some StringProtocol) -> Substring {
        let whole = Substring(text)
        let utf8 = whole.utf8
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, isSpace(utf8[start]) { start = utf8.index(after: start) }
        while end > start, isSpace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        return whole[start..<end]
    }
}
