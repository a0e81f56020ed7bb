/// Texts an attacker would send to make a terminal show something else than what is there: escape
/// sequences that erase and overwrite lines, carriage returns, C1 controls, bidirectional
/// overrides and isolates, zero-width and other invisible characters, NUL, stacked combining marks.
public enum HostileText: String, CaseIterable, Sendable {
    case escapeSequence = "Weather\u{1B}[2K\u{1B}[1A\u{1B}[2Kgiven name only"
    case carriageReturn = "phone numbers\rgiven name  "
    case c1Control = "org.example\u{9B}31m"
    case bidiOverride = "photos \u{202E}txt.sliated\u{202C}"
    case bidiIsolate = "name \u{2067}gnorw\u{2069}"
    case zeroWidthSpace = "org.exam\u{200B}ple.weather"
    case zeroWidthJoiner = "we\u{200D}ather"
    case nul = "org.example\0.weather"
    case delete = "weather\u{7F}\u{7F}\u{7F}"
    case lineSeparator = "weather\u{2028}approved: yes"
    case hangulFiller = "org.example.\u{3164}weather"
    case stackedMarks = "e\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}"
    case bell = "ding\u{07}"
    case byteOrderMark = "\u{FEFF}org.example.weather"
}
