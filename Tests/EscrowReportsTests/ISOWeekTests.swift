import EscrowCore
import EscrowReports
import Testing

@Suite struct ISOWeekTests {
    /// Weeks start on Monday and belong to the year of their Thursday.
    @Test(arguments: [
        (2026, 11, 23, "2026-W48"), (2026, 12, 31, "2026-W53"), (2027, 1, 1, "2026-W53"), (2027, 1, 3, "2026-W53"),
        (2027, 1, 4, "2027-W01"), (2024, 12, 29, "2024-W52"), (2024, 12, 30, "2025-W01"), (2025, 12, 29, "2026-W01"),
        (2020, 12, 31, "2020-W53"), (2021, 1, 3, "2020-W53"), (2023, 1, 1, "2022-W52"), (2024, 2, 29, "2024-W09"),
        (1970, 1, 1, "1970-W01"), (1969, 12, 29, "1970-W01"), (1969, 12, 28, "1969-W52"), (2000, 1, 1, "1999-W52"),
    ])
    func weekOfADate(year: Int, month: Int, day: Int, week: String) {
        let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
        #expect(ISOWeek(daysSince1970: days).description == week)
        // Any second of that UTC day, before 1970 too.
        #expect(ISOWeek(secondsSince1970: Int64(days) * 86_400).description == week)
        #expect(ISOWeek(secondsSince1970: Int64(days) * 86_400 + 86_399).description == week)
    }

    @Test func weeksOrderByYearThenWeek() {
        #expect(ISOWeek(year: 2026, week: 53) < ISOWeek(year: 2027, week: 1))
        #expect(ISOWeek(year: 2026, week: 2) < ISOWeek(year: 2026, week: 10))
        #expect(ISOWeek(year: 987, week: 3).description == "0987-W03")
    }
}
