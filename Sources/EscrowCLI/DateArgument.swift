import EscrowCore

/// Dates given on the command line: an ISO 8601 date-time, or a date alone.
enum DateArgument {
    /// The moment `text` names; a date alone is the END of that day, UTC (for `--until`).
    static func end(_ text: String, option: String) throws -> Double {
        let seconds = try parse(text, option: option)
        return isDateAlone(text) ? seconds + 86_400 : seconds
    }

    /// The moment `text` names; a date alone is the START of that day, UTC (for `--since`).
    static func start(_ text: String, option: String) throws -> Double {
        try parse(text, option: option)
    }

    private static func parse(_ text: String, option: String) throws -> Double {
        guard let seconds = Timestamp.parse(text) else {
            throw CLIError("\(option) '\(text)': expected a date (2026-12-31) or an ISO 8601 date-time (2026-12-31T18:00:00Z)")
        }
        return seconds
    }

    private static func isDateAlone(_ text: String) -> Bool {
        text.utf8.count == 10
    }
}
