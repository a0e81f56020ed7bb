import EscrowCore

/// Access SQL laid out for the person who decides on it.
///
/// What is shown is the statement that runs, not the app's text: comments are left out (they do
/// not run, and an app could write anything in them), the layout is the escrow's own (one clause
/// per line, subqueries indented), and every token is shown with `DisplayText.escaped`, so a
/// string literal cannot break a line or act on the terminal.
///
/// Thread safety: pure functions.
public enum SQLDisplay {
    /// Keywords that start a line.
    private static let clauses: Set<String> = [
        "SELECT", "FROM", "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "INTERSECT", "EXCEPT", "WINDOW",
        "JOIN", "LEFT", "RIGHT", "INNER", "CROSS", "FULL", "NATURAL",
    ]
    /// Keywords that may come before JOIN on the same line.
    private static let joinModifiers: Set<String> = ["LEFT", "RIGHT", "INNER", "CROSS", "FULL", "NATURAL", "OUTER"]

    /// The statement's lines, as `escrow flows show` prints them.
    public static func lines(_ sql: String) -> [String] {
        var lines: [String] = []
        var line = ""
        var depth = 0
        var previous = ""
        for token in SQLText.tokens(sql) {
            let text = String(decoding: token, as: UTF8.self)
            let word = token.first.map { $0 != 0x27 && $0 != 0x22 && $0 != 0x60 && $0 != 0x5B } == true
                ? text.uppercased() : ""
            let startsClause = clauses.contains(word) && !(joinModifiers.contains(previous) && word != "SELECT")
            if startsClause, !line.isEmpty {
                lines.append(line)
                line = String(repeating: "  ", count: depth)
            }
            if text == ")" { depth = max(0, depth - 1) }
            let shown = DisplayText.escaped(text)
            if !line.isEmpty, !line.hasSuffix(" "), needsSpace(after: previous, before: text) {
                line += " "
            }
            line += shown
            if text == "(" { depth += 1 }
            previous = word.isEmpty ? text : word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Whether the app's SQL holds comments (which `lines(_:)` does not show).
    public static func hasComments(_ sql: String) -> Bool {
        // Tokens are slices of the text's bytes: what lies between them is whitespace, trailing
        // semicolons or comments.
        let bytes = Array(sql.utf8)
        var end = 0
        func holdsComment(_ gap: ArraySlice<UInt8>) -> Bool {
            gap.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C && $0 != 0x3B }
        }
        for token in SQLText.tokens(sql) {
            if holdsComment(bytes[end..<token.startIndex]) { return true }
            end = token.endIndex
        }
        return holdsComment(bytes[end...])
    }

    private static func needsSpace(after previous: String, before next: String) -> Bool {
        if previous == "(" || previous == "." { return false }
        return !(next == "," || next == ")" || next == "." || next == ";")
    }
}
