/// The one timestamp representation of the escrow: ISO 8601 in UTC with milliseconds, fixed
/// width (`2024-05-01T12:34:56.000Z`). It sorts chronologically as text and SQLite's date
/// functions read it.
public enum Timestamp {
    /// Formats seconds since 1970-01-01T00:00:00Z (rounded to the millisecond).
    public static func format(secondsSince1970 seconds: Double) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        write(secondsSince1970: seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 24 bytes of `format(secondsSince1970:)` to `bytes`.
    public static func write(secondsSince1970 seconds: Double, to bytes: inout [UInt8]) {
        let scaled = (seconds * 1000).rounded()
        let totalMillis = scaled.isFinite && abs(scaled) < 9e15 ? Int64(scaled) : 0
        var days = totalMillis / 86_400_000
        var millisOfDay = totalMillis % 86_400_000
        if millisOfDay < 0 {
            millisOfDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = civilFromDays(Int(days))
        let secondsOfDay = Int(millisOfDay / 1000)
        // Filled in a buffer on the stack and appended at once: importers write tens of
        // thousands of these, and appending digit by digit dominated the photo import.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            var position = 0
            func put(_ value: Int, _ width: Int, then separator: UInt8) {
                var remaining = abs(value)
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    text[position + offset] = UInt8(48 + remaining % 10)
                    remaining /= 10
                }
                text[position + width] = separator
                position += width + 1
            }
            put(year, 4, then: 0x2D)
            put(month, 2, then: 0x2D)
            put(day, 2, then: 0x54)
            put(secondsOfDay / 3600, 2, then: 0x3A)
            put(secondsOfDay / 60 % 60, 2, then: 0x3A)
            put(secondsOfDay % 60, 2, then: 0x2E)
            put(Int(millisOfDay % 1000), 3, then: 0x5A)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<position]))
        }
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Parses an ISO 8601 date-time: `YYYY-MM-DD[T ]HH:MM[:SS[.fff]]` followed by `Z`, `±HH:MM`,
    /// `±HHMM` or nothing (then UTC), or a date alone (midnight UTC).
    ///
    /// - Returns: seconds since 1970, or nil when the text is not such a date-time.
    public static func parse(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<digits {
                let byte = bytes[index + offset]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        var offsetSeconds = 0
        if index < bytes.count {
            guard bytes[index] == 84 || bytes[index] == 116 || bytes[index] == 32 else { return nil }  // T, t, space
            index += 1
            guard let h = number(2), expect(58), let m = number(2) else { return nil }
            hour = h
            minute = m
            if expect(58) {
                guard let s = number(2) else { return nil }
                second = s
                if index < bytes.count, bytes[index] == 46 || bytes[index] == 44 {
                    index += 1
                    var scale = 0.1
                    var digits = 0
                    while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                        fraction += Double(bytes[index] - 48) * scale
                        scale /= 10
                        index += 1
                        digits += 1
                    }
                    guard digits > 0 else { return nil }
                }
            }
            guard hour < 24 || (hour == 24 && minute == 0 && second == 0), minute < 60, second <= 60 else { return nil }
            if index < bytes.count {
                let sign = bytes[index]
                if sign == 90 || sign == 122 {  // Z
                    index += 1
                } else if sign == 43 || sign == 45 {  // + -
                    index += 1
                    guard let oh = number(2) else { return nil }
                    _ = expect(58)
                    let om = number(2) ?? 0
                    offsetSeconds = (oh * 3600 + om * 60) * (sign == 43 ? 1 : -1)
                } else {
                    return nil
                }
            }
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds) + fraction
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
