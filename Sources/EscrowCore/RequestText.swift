/// The rules for the texts an app sends with a run request, checked wherever a request enters
/// the escrow (the daemon's socket, the SDK, the CLI) before anything is recorded.
///
/// What the individual approves is shown from these texts, so none may act on a terminal or hide
/// part of itself:
/// - the app id is reverse-DNS: ASCII letters, digits, `-` and `_` in two or more labels separated
///   by `.` (so it cannot borrow letters from another script to pass for another app's);
/// - the purpose and every parameter value are printable text of bounded length: no control
///   characters, no invisible or format characters, no bidirectional overrides, no characters
///   Unicode has not assigned, no stacks of combining marks;
/// - the access SQL holds no NUL and no control character but tab and line feed, and no
///   bidirectional override.
///
/// Thread safety: pure functions.
public enum RequestText {
    public static let maximumAppIDLength = 255
    public static let maximumPurposeLength = 300
    public static let maximumParameterNameLength = 64
    public static let maximumParameterValueLength = 1024

    /// Checks every text of a request.
    ///
    /// - Throws: `RequestTextError` naming the first text that breaks its rule, and why.
    public static func check(app: String, purpose: String, sql: String,
                             parameters: some Sequence<(key: String, value: String)>) throws(RequestTextError) {
        try checkAppID(app)
        try checkPurpose(purpose)
        try checkSQL(sql)
        for (name, value) in parameters {
            try checkParameter(name: name, value: value)
        }
    }

    /// Checks an app id: reverse-DNS, ASCII letters, digits, `-`, `_`, at least two labels.
    public static func checkAppID(_ app: String) throws(RequestTextError) {
        if app.isEmpty { throw RequestTextError(.appID, app, .empty) }
        let bytes = app.utf8
        if bytes.count > maximumAppIDLength { throw RequestTextError(.appID, app, .tooLong(limit: maximumAppIDLength)) }
        var labels = 1
        var labelLength = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                labelLength += 1
            case UInt8(ascii: "."):
                if labelLength == 0 { throw RequestTextError(.appID, app, .notReverseDNS) }
                labels += 1
                labelLength = 0
            default:
                throw RequestTextError(.appID, app, .notReverseDNS)
            }
        }
        if labelLength == 0 || labels < 2 { throw RequestTextError(.appID, app, .notReverseDNS) }
    }

    /// Checks a purpose: printable, not blank, at most `maximumPurposeLength` characters.
    public static func checkPurpose(_ purpose: String) throws(RequestTextError) {
        if purpose.allSatisfy(\.isWhitespace) { throw RequestTextError(.purpose, purpose, .empty) }
        try checkPrintable(purpose, field: .purpose, limit: maximumPurposeLength)
    }

    /// Checks a parameter's name and value: printable, bounded.
    public static func checkParameter(name: String, value: String) throws(RequestTextError) {
        if name.isEmpty { throw RequestTextError(.parameterName, name, .empty) }
        try checkPrintable(name, field: .parameterName, limit: maximumParameterNameLength)
        try checkPrintable(value, field: .parameterValue(name: name), limit: maximumParameterValueLength)
    }

    /// Checks access SQL: no NUL or other control character but tab and line feed, no
    /// bidirectional override. (Its length is the guard's limit.)
    public static func checkSQL(_ sql: String) throws(RequestTextError) {
        // Most SQL is ASCII without controls: one pass over the bytes decides.
        if sql.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 || $0 == 0x0A }) { return }
        var offset = 0
        for scalar in sql.unicodeScalars {
            let value = scalar.value
            if (value < 0x20 && value != 0x09 && value != 0x0A) || (value >= 0x7F && value <= 0x9F) {
                throw RequestTextError(.sql, sql, .controlCharacter(scalar, offset: offset))
            }
            if value > 0x2000, DisplayText.isBidirectionalControl(scalar) {
                throw RequestTextError(.sql, sql, .bidirectionalControl(scalar, offset: offset))
            }
            offset += 1
        }
    }

    private static func checkPrintable(_ text: String, field: RequestTextError.Field, limit: Int) throws(RequestTextError) {
        // Printable ASCII (the common case) is checked byte by byte; anything else character by character.
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            if utf8.count > limit { throw RequestTextError(field, text, .tooLong(limit: limit)) }
            return
        }
        var offset = 0
        for character in text {
            var marks = 0
            for scalar in character.unicodeScalars {
                if DisplayText.isUnsafe(scalar) {
                    let problem: RequestTextError.Problem = scalar.value < 0xA0 || scalar.properties.generalCategory == .control
                        ? .controlCharacter(scalar, offset: offset)
                        : DisplayText.isBidirectionalControl(scalar) ? .bidirectionalControl(scalar, offset: offset)
                        : .invisibleCharacter(scalar, offset: offset)
                    throw RequestTextError(field, text, problem)
                }
                if DisplayText.isCombiningMark(scalar) {
                    marks += 1
                    if marks > DisplayText.maximumCombiningMarks {
                        throw RequestTextError(field, text, .stackedMarks(offset: offset))
                    }
                }
                offset += 1
            }
            if offset > limit { throw RequestTextError(field, text, .tooLong(limit: limit)) }
        }
    }
}

/// A text of a run request that breaks `RequestText`'s rules: which one, and why.
///
/// Its description quotes the text with `DisplayText.escaped`, so printing it is safe.
public struct RequestTextError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Field: Sendable, Equatable {
        case appID, purpose, sql, parameterName
        case parameterValue(name: String)
    }

    public enum Problem: Sendable, Equatable {
        case empty
        case tooLong(limit: Int)
        case notReverseDNS
        /// A control character (C0, C1, DEL; in SQL, anything but tab and line feed), at a
        /// character offset.
        case controlCharacter(Unicode.Scalar, offset: Int)
        case bidirectionalControl(Unicode.Scalar, offset: Int)
        /// A format, invisible or unassigned character.
        case invisibleCharacter(Unicode.Scalar, offset: Int)
        /// More than `DisplayText.maximumCombiningMarks` combining marks on one character.
        case stackedMarks(offset: Int)
    }

    public let field: Field
    public let problem: Problem
    /// The offending text, cut to 200 characters.
    public let text: String

    public init(_ field: Field, _ text: String, _ problem: Problem) {
        self.field = field
        self.problem = problem
        self.text = text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    public var description: String {
        let name: String = switch field {
        case .appID: "the app id"
        case .purpose: "the purpose"
        case .sql: "the access SQL"
        case .parameterName: "a parameter name"
        case .parameterValue(let parameter): "the value of parameter \(DisplayText.escaped(parameter))"
        }
        let quoted = field == .sql ? "" : " \"\(DisplayText.escaped(text))\""
        switch problem {
        case .empty:
            return field == .appID ? "\(name) is empty; pass the app's reverse-DNS id, such as org.example.weather"
                : field == .purpose ? "\(name) is empty; say why the app needs this data"
                : "\(name) is empty"
        case .tooLong(let limit):
            return "\(name)\(quoted) is longer than \(limit) characters; shorten it"
        case .notReverseDNS:
            return "\(name)\(quoted) is not a reverse-DNS id: use ASCII letters, digits, '-' and '_' in two or more "
                + "labels separated by '.', such as org.example.weather"
        case .controlCharacter(let scalar, let offset):
            let allowed = field == .sql ? "only tab and line feed are allowed" : "it must be printable text on one line"
            return "\(name)\(quoted) holds the control character \(DisplayText.escape(scalar)) at character \(offset): \(allowed)"
        case .bidirectionalControl(let scalar, let offset):
            return "\(name)\(quoted) holds the bidirectional control \(DisplayText.escape(scalar)) at character \(offset), "
                + "which reorders how the text is shown; remove it"
        case .invisibleCharacter(let scalar, let offset):
            return "\(name)\(quoted) holds the invisible or unassigned character \(DisplayText.escape(scalar)) at character "
                + "\(offset); remove it"
        case .stackedMarks(let offset):
            return "\(name)\(quoted) stacks more than \(DisplayText.maximumCombiningMarks) combining marks on the character at "
                + "\(offset); remove them"
        }
    }
}
