import Foundation

/// A label and a value, as CNLabeledValue: `{"label": "mobile", "value": "+1 555 0100"}`.
public struct LabeledValue: Sendable, Hashable, Codable {
    public var label: String?
    public var value: String

    public init(label: String?, value: String) {
        self.label = label
        self.value = value
    }
}

/// A postal address, as CNPostalAddress.
public struct PostalAddress: Sendable, Hashable, Codable {
    public var label: String?
    public var street: String?
    public var city: String?
    public var state: String?
    public var postalCode: String?
    public var country: String?

    public init(label: String? = nil, street: String? = nil, city: String? = nil, state: String? = nil,
                postalCode: String? = nil, country: String? = nil) {
        self.label = label
        self.street = street
        self.city = city
        self.state = state
        self.postalCode = postalCode
        self.country = country
    }
}

/// One contact parsed from a vCard, before it is stored as a `Contact` row.
public struct ContactRecord: Sendable, Hashable {
    /// The vCard UID, when the card has one.
    public var uid: String?
    /// `"person"`, or `"organization"` (vCard 4 `KIND:org`, or Apple's `X-ABShowAs:COMPANY`).
    public var contactType: String = "person"
    public var namePrefix: String?
    public var givenName: String?
    public var middleName: String?
    public var familyName: String?
    public var nameSuffix: String?
    public var nickname: String?
    public var organizationName: String?
    public var departmentName: String?
    public var jobTitle: String?
    public var phoneNumbers: [LabeledValue] = []
    public var emailAddresses: [LabeledValue] = []
    public var postalAddresses: [PostalAddress] = []
    public var urlAddresses: [LabeledValue] = []
    /// `YYYY-MM-DD`, or `--MM-DD` when the year is unknown.
    public var birthday: String?
    public var note: String?
    /// CATEGORIES: the groups the contact belongs to.
    public var groups: [String] = []
    /// Line of the file where the card begins (`BEGIN:VCARD`), for messages.
    public var line: Int

    public init(line: Int) { self.line = line }
}

/// One location fix parsed from GPX, GeoJSON or CSV, before it is stored as a `Location` row.
public struct LocationRecord: Sendable, Hashable {
    /// Seconds since 1970 (UTC); nil when the source gives the point no time (a GPX waypoint or
    /// route point without `<time>`, a GeoJSON position without a timestamp).
    public var timestamp: Double?
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    public var speed: Double?
    public var course: Double?
    public var floor: Int?
    /// `gpx:trkpt`, `gpx:rtept`, `gpx:wpt`, `geojson` or `csv`.
    public var source: String
    /// Line of the file the point was read from.
    public var line: Int

    public init(timestamp: Double?, latitude: Double, longitude: Double, source: String, line: Int) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.source = source
        self.line = line
    }
}

/// Kind of a media file, as PHAssetMediaType.
public enum MediaType: String, Sendable, Hashable, Codable {
    case image, video, audio
}

/// What the escrow learns from a media file's bytes.
public struct MediaInfo: Sendable, Hashable {
    public var mediaType: MediaType
    /// `jpeg`, `png`, `heic`, `mp4`, `mov`, `m4a` or `mp3`.
    public var format: String
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    /// Seconds, for video and audio.
    public var duration: Double?
    /// Capture date from EXIF or the container, seconds since 1970 (UTC).
    public var creationDate: Double?
    public var latitude: Double?
    public var longitude: Double?

    public init(mediaType: MediaType, format: String) {
        self.mediaType = mediaType
        self.format = format
    }
}

/// A malformed input file: which file, which line (when there is one) and why.
///
/// Rendered as `file:line: reason`. An import that throws this has written nothing.
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int?
    public let reason: String

    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        if let line { return "\(file):\(line): \(reason)" }
        return "\(file): \(reason)"
    }
}
