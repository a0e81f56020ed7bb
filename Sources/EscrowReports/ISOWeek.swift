import EscrowCore

/// An ISO 8601 week (`2026-W48`): the date precision the minimized export keeps.
///
/// Weeks start on Monday and belong to the year that holds their Thursday, so the days around
/// New Year may fall in the other year's week: 2027-01-01 is in `2026-W53`, 2024-12-30 in
/// `2025-W01`. Dates are taken in UTC.
///
/// Thread safety: a value; safe to share between tasks.
public struct ISOWeek: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The ISO week-numbering year (not always the calendar year of the date).
    public var year: Int
    /// The week of that year, 1…53.
    public var week: Int

    public init(year: Int, week: Int) {
        self.year = year
        self.week = week
    }

    /// The week of the UTC date `secondsSince1970` falls on.
    public init(secondsSince1970 seconds: Int64) {
        let (days, remainder) = seconds.quotientAndRemainder(dividingBy: 86_400)
        self.init(daysSince1970: Int(remainder < 0 ? days - 1 : days))
    }

    /// The week of the date `days` after 1970-01-01.
    public init(daysSince1970 days: Int) {
        // 1970-01-01 was a Thursday: weekday 3 counting Monday as 0.
        let weekday = ((days + 3) % 7 + 7) % 7
        let thursday = days - weekday + 3
        let year = Timestamp.civilFromDays(thursday).year
        self.init(year: year, week: (thursday - Timestamp.daysFromCivil(year: year, month: 1, day: 1)) / 7 + 1)
    }

    /// `YYYY-Www`, the year with at least four digits and the week with two.
    public var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(abs(value))
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-W\(padded(week, 2))"
    }

    public static func < (lhs: ISOWeek, rhs: ISOWeek) -> Bool {
        (lhs.year, lhs.week) < (rhs.year, rhs.week)
    }
}
