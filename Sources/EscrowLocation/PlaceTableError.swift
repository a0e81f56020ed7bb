/// A place table that cannot be read: the bytes are not a place table, are of another version,
/// are cut short, or are corrupt.
///
/// The bundled table is checked when escrow is built, so meeting this error from
/// `PlaceTable.bundled()` means the binary itself is damaged; from `PlaceTable(bytes:)` it means
/// the bytes given are not what scripts/make-places.sh writes.
///
/// Thread safety: a value.
public struct PlaceTableError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Representation: Sendable, Equatable {
        case notAPlaceTable
        case unsupportedVersion(Int)
        case truncated(section: String, needed: Int, available: Int)
        case checksumMismatch(stored: UInt32, computed: UInt32)
        case invalid(String)
        case bundledNotBase64
    }

    private let representation: Representation

    private init(_ representation: Representation) { self.representation = representation }

    /// The bytes do not start with the place table's magic "EPLT".
    public static let notAPlaceTable = PlaceTableError(.notAPlaceTable)

    /// The table is of a format version this build does not read.
    public static func unsupportedVersion(_ version: Int) -> PlaceTableError { PlaceTableError(.unsupportedVersion(version)) }

    /// A section needs more bytes than are left.
    public static func truncated(section: String, needed: Int, available: Int) -> PlaceTableError {
        PlaceTableError(.truncated(section: section, needed: needed, available: available))
    }

    /// The CRC-32 at the end does not match the bytes before it.
    public static func checksumMismatch(stored: UInt32, computed: UInt32) -> PlaceTableError {
        PlaceTableError(.checksumMismatch(stored: stored, computed: computed))
    }

    /// A value is out of its range (an index past its table, a latitude beyond a pole, a name that
    /// is not UTF-8, bytes left over).
    public static func invalid(_ what: String) -> PlaceTableError { PlaceTableError(.invalid(what)) }

    /// The table compiled into this binary is not valid base64.
    public static let bundledNotBase64 = PlaceTableError(.bundledNotBase64)

    private static let remedy = "regenerate it with scripts/make-places.sh (or reinstall escrow if this is the bundled table)"

    public var description: String {
        switch representation {
        case .notAPlaceTable:
            "these bytes are not a place table (no \"EPLT\" magic at the start); pass the file scripts/make-places.sh writes"
        case .unsupportedVersion(let version):
            "the place table is format version \(version); this build reads version \(PlaceTable.formatVersion): \(Self.remedy)"
        case .truncated(let section, let needed, let available):
            "the place table is cut short in its \(section): \(needed) bytes needed, \(available) left; \(Self.remedy)"
        case .checksumMismatch(let stored, let computed):
            "the place table is corrupt: its CRC-32 says \(hex(stored)), its bytes give \(hex(computed)); \(Self.remedy)"
        case .invalid(let what):
            "the place table is corrupt: \(what); \(Self.remedy)"
        case .bundledNotBase64:
            "the place table compiled into this binary is not valid base64: the binary is damaged; rebuild or reinstall escrow"
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
