
extension VCardParser {
    /// Normalises `BDAY` values.
    enum Birthday {
        /// `YYYY-MM-DD` or `--MM-DD` from the forms exporters write, or nil when `written` is not a date.
        ///
        /// Accepts `1985-04-12`, `19850412`, `--0412`, `--04-12`, and any of these followed by a time
        /// (`1985-04-12T00:00:00Z`). A year equal to Apple's `X-APPLE-OMIT-YEAR` means "no year".
        static func normalized(_ written: String, omitYear: String?) -> String? {
            let bytes = Array(written.utf8)
            var index = 0
            var year: Int?
            if bytes.starts(with: [ASCII.dash, ASCII.dash]) {
                index = 2
            } else {
                guard let value = number(bytes, at: &index, digits: 4) else { return nil }
                year = value
            }
            let dashed = index < bytes.count && bytes[index] == ASCII.dash
            if dashed, year != nil { index += 1 }
            guard let month = number(bytes, at: &index, digits: 2) else { return nil }
            if dashed || (year == nil && index < bytes.count && bytes[index] == ASCII.dash) {
                guard index < bytes.count, bytes[index] == ASCII.dash else { return nil }
                index += 1
            }
            guard let day = number(bytes, at: &index, digits: 2) else { return nil }
            if index < bytes.count, bytes[index] != ASCII.upperT, bytes[index] != ASCII.space,
               bytes[index] != ASCII.lowerT {
                return nil
            }
            guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
            let monthDay = pad(month) + "-" + pad(day)
            guard let year, omitYear != String(year) else { return "--" + monthDay }
            return String(year + 10_000).dropFirst() + "-" + monthDay
        }

        private static func number(_ bytes: [UInt8], at index: inout Int, digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + digits)] {
                guard ASCII.isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }

        private static func daysIn(month: Int, year: Int?) -> Int {
            switch month {
            case 2:
                guard let year else { return 29 }
                return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: return 30
            default: return 31
            }
        }

        private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    }
}
