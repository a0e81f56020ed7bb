
extension VCardParser {
    /// Splits a file into physical lines and joins them into logical (unfolded) lines.
    ///
    /// A physical line that starts with a space or tab continues the previous one (the one whitespace
    /// character is removed). In a quoted-printable property, a line ending in `=` continues on the
    /// next line (a soft line break; the `=` is removed). Blank lines are skipped.
    struct LogicalLines {
        private let bytes: [UInt8]
        private let lines: [Range<Int>]
        private var nextLine = 0
        /// The current logical line, unfolded; valid after ``advance()`` returned a line number.
        private(set) var buffer: [UInt8] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
            var start = 0
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
            var lines: [Range<Int>] = []
            lines.reserveCapacity(bytes.count / 24 + 1)
            bytes.withUnsafeBufferPointer { raw in
                var lineStart = start
                var index = start
                let count = raw.count
                while index < count {
                    let byte = raw[index]
                    if byte == ASCII.lf {
                        lines.append(lineStart..<index)
                        index += 1
                        lineStart = index
                    } else if byte == ASCII.cr {
                        lines.append(lineStart..<index)
                        index += 1
                        if index < count, raw[index] == ASCII.lf { index += 1 }
                        lineStart = index
                    } else {
                        index += 1
                    }
                }
                if lineStart < count { lines.append(lineStart..<count) }
            }
            self.lines = lines
        }

        /// Moves to the next non-blank logical line and unfolds it into ``buffer``.
        ///
        /// - Returns: The 1-based physical line where the logical line starts, or nil at the end.
        mutating func advance() -> Int? {
            while nextLine < lines.count {
                let range = lines[nextLine]
                let number = nextLine + 1
                nextLine += 1
                var start = range.lowerBound
                while start < range.upperBound, ASCII.isBlank(bytes[start]) { start += 1 }
                if start == range.upperBound { continue }
                buffer.removeAll(keepingCapacity: true)
                buffer.append(contentsOf: bytes[start..<range.upperBound])
                unfold()
                return number
            }
            return nil
        }

        /// Appends the continuation lines of the current logical line to ``buffer``.
        private mutating func unfold() {
            var quotedPrintable: Bool?
            while nextLine < lines.count {
                let next = lines[nextLine]
                if endsWithSoftLineBreak(&quotedPrintable), !startsCardBoundary(next) {
                    while let last = buffer.last, ASCII.isBlank(last) { buffer.removeLast() }
                    buffer.removeLast()
                    buffer.append(contentsOf: bytes[next])
                    nextLine += 1
                } else if !next.isEmpty, ASCII.isBlank(bytes[next.lowerBound]) {
                    buffer.append(contentsOf: bytes[(next.lowerBound + 1)..<next.upperBound])
                    nextLine += 1
                } else {
                    return
                }
            }
        }

        /// Whether ``buffer`` is a quoted-printable property whose last line ends in `=`.
        private func endsWithSoftLineBreak(_ quotedPrintable: inout Bool?) -> Bool {
            var end = buffer.count
            while end > 0, ASCII.isBlank(buffer[end - 1]) { end -= 1 }
            guard end > 0, buffer[end - 1] == ASCII.equals else { return false }
            if let quotedPrintable { return quotedPrintable }
            let colon = buffer.firstIndex(of: ASCII.colon) ?? buffer.count
            let isQuotedPrintable = ASCII.containsIgnoringCase(buffer[..<colon], "QUOTED-PRINTABLE")
            quotedPrintable = isQuotedPrintable
            return isQuotedPrintable
        }

        /// Whether a physical line is `BEGIN:VCARD` or `END:VCARD`, which a soft line break never joins.
        private func startsCardBoundary(_ range: Range<Int>) -> Bool {
            let line = bytes[range]
            return ASCII.hasPrefixIgnoringCase(line, "END:VCARD") || ASCII.hasPrefixIgnoringCase(line, "BEGIN:VCARD")
        }
    }
}
