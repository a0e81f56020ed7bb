/// Text that came from outside the escrow (an app, a file, a peer), made safe to show.
///
/// A terminal acts on some characters instead of showing them: control characters move the
/// cursor, erase lines and start escape sequences; bidirectional overrides reorder what follows;
/// format and other default-ignorable characters are invisible, so two texts that look the same
/// can differ. `escaped(_:)` shows every such character as a visible escape (`\r`, `\u{1B}`,
/// `\u{202E}`, …), so what a person reads is the text as it is. Characters that merely look
/// unusual (letters of any script, emoji, private-use characters) are shown as they are.
///
/// Thread safety: pure functions.
public enum DisplayText {
    /// How many combining marks one character may stack before the rest are shown escaped: more
    /// cannot be read and can spill over the lines around it.
    public static let maximumCombiningMarks = 4

    /// The text with every character that would act on a terminal, or hide, shown as an escape.
    ///
    /// - Parameter lineBreaks: keep `\n` as a line break (and show a tab as spaces) instead of
    ///   escaping them; for multi-line text whose every line is shown in full.
    public static func escaped(_ text: String, lineBreaks: Bool = false) -> String {
        guard needsEscaping(text, lineBreaks: lineBreaks) else { return text }
        var result = String.UnicodeScalarView()
        for character in text {
            var marks = 0
            for scalar in character.unicodeScalars {
                if lineBreaks, scalar == "\n" {
                    result.append(scalar)
                } else if lineBreaks, scalar == "\t" {
                    result.append(contentsOf: "    ".unicodeScalars)
                } else if isUnsafe(scalar) {
                    result.append(contentsOf: escape(scalar).unicodeScalars)
                } else if isCombiningMark(scalar) {
                    marks += 1
                    if marks > maximumCombiningMarks {
                        result.append(contentsOf: escape(scalar).unicodeScalars)
                    } else {
                        result.append(scalar)
                    }
                } else {
                    result.append(scalar)
                }
            }
        }
        return String(result)
    }

    /// Whether `escaped(_:lineBreaks:)` would change the text.
    public static func needsEscaping(_ text: String, lineBreaks: Bool = false) -> Bool {
        var utf8 = text.utf8.makeIterator()
        var allASCII = true
        while let byte = utf8.next() {
            if byte >= 0x80 {
                allASCII = false
                break
            }
            if byte < 0x20 || byte == 0x7F {
                if lineBreaks, byte == 0x0A { continue }
                return true
            }
        }
        if allASCII { return false }
        for character in text {
            var marks = 0
            for scalar in character.unicodeScalars {
                if lineBreaks, scalar == "\n" { continue }
                if isUnsafe(scalar) { return true }
                if isCombiningMark(scalar) {
                    marks += 1
                    if marks > maximumCombiningMarks { return true }
                }
            }
        }
        return false
    }

    /// Whether a character must never reach a terminal as it is: C0 and C1 controls, DEL,
    /// line and paragraph separators, format characters (bidirectional overrides and isolates,
    /// zero-width spaces and joiners, …), other default-ignorable (invisible) characters, and
    /// characters Unicode has not assigned. Variation selectors 15 and 16 (text or emoji
    /// presentation) are allowed.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (value >= 0x7F && value <= 0x9F) { return true }
        if value < 0xA0 { return false }
        if value == 0xFE0E || value == 0xFE0F { return false }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate:
            return true
        default:
            return properties.isDefaultIgnorableCodePoint
        }
    }

    /// Whether a character is a bidirectional embedding, override or isolate (U+202A–U+202E,
    /// U+2066–U+2069): it reorders the text after it.
    public static func isBidirectionalControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value >= 0x300 else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// The visible form of one character: `\0`, `\t`, `\n`, `\r`, else `\u{HEX}`.
    public static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\0": "\\0"
        case "\t": "\\t"
        case "\n": "\\n"
        case "\r": "\\r"
        default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }
}
