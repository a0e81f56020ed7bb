import EscrowCore

/// Text from outside the escrow (app ids, purposes, domains, decisions) made safe to place in an
/// HTML page or an inline SVG, as element text or as an attribute value.
///
/// Every such text is hostile until escaped: `<script>`, `"><img src=x onerror=…>` and a
/// right-to-left override (U+202E) must reach the reader as the characters they are, never as
/// markup or reordered text. `escaped(_:)` first shows control characters, bidirectional controls
/// and invisible characters as visible escapes (`DisplayText.escaped`), then replaces the five
/// characters HTML gives a meaning (`&`, `<`, `>`, `"`, `'`) with character references, so the
/// result is safe in element content and in quoted attribute values alike.
///
/// Thread safety: pure functions.
enum HTMLText {
    /// The text, with invisible and reordering characters shown as escapes and HTML's special
    /// characters as character references.
    static func escaped(_ text: String) -> String {
        markupEscaped(DisplayText.escaped(text))
    }

    /// `escaped(_:)` of the text cut to `limit` characters (an ellipsis marks the cut), for labels
    /// in a chart whose width is fixed. The cut is made on the visible form, so an escape is never
    /// split from what it shows in a way that hides a character: a cut escape shows as cut.
    static func escaped(_ text: String, limit: Int) -> String {
        let visible = DisplayText.escaped(text)
        guard visible.count > limit else { return markupEscaped(visible) }
        return markupEscaped(String(visible.prefix(max(1, limit - 1)))) + "…"
    }

    /// Replaces `&`, `<`, `>`, `"` and `'` with character references; leaves everything else.
    static func markupEscaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 })
        else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
