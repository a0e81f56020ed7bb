import Foundation

/// Parses vCard files (versions 2.1, 3.0 and 4.0) into ``ContactRecord`` values.
///
/// Reads what Apple Contacts, Google Contacts, Android and Outlook export: CRLF, LF or CR line
/// endings, a UTF-8 byte order mark, folded lines, vCard 2.1 quoted-printable values with soft line
/// breaks and `CHARSET` parameters (UTF-8, ISO-8859-1, windows-1252), bare 2.1 parameters
/// (`TEL;HOME;VOICE:`), `TYPE=` lists, and Apple's grouped labels (`item1.TEL` with
/// `item1.X-ABLabel`). Photos, sounds, keys and unknown or `X-` properties are skipped.
///
/// The parser works on the file's bytes; it never splits the file into `String` lines.
///
/// Thread safety: `VCardParser` has no state; call it from any thread or task concurrently.
///
/// Its parts are nested in `VCardParser`, one concept per file (`VCardParser+Part.swift`), so their
/// short names stay out of the module's namespace.
public enum VCardParser {
    /// Parses every card in a vCard file (2.1, 3.0 or 4.0; several cards per file).
    ///
    /// Labels are readable words derived from `TYPE` parameters or Apple labels (`"mobile"`,
    /// `"home"`, `"work fax"`, a custom label as written); a value without a type has a nil label.
    /// Birthdays are normalised to `YYYY-MM-DD`, or `--MM-DD` when the year is unknown.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - file: The file's name, used only in error messages.
    /// - Returns: One record per `BEGIN:VCARD` … `END:VCARD` card, in file order.
    /// - Throws: ``ImportError`` with the 1-based physical line when the file is not a well-formed
    ///   vCard file: no card at all, content outside a card, a card without `END:VCARD`, an
    ///   `END:VCARD` without `BEGIN:VCARD`, a nested card, a line without a colon, an unsupported
    ///   `VERSION`, invalid quoted-printable, an unsupported or undecodable charset, or a `BDAY`
    ///   that is not a date. Nothing is returned when any card is malformed.
    public static func parse(_ data: Data, file: String) throws(ImportError) -> [ContactRecord] {
        var reader = VCardReader(bytes: [UInt8](data), file: file)
        return try reader.readCards()
    }
}
