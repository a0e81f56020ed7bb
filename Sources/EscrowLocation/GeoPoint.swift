/// A point on the Earth: latitude and longitude in degrees (WGS 84, as the `Location` table keeps
/// them).
///
/// Latitude is in −90…90; longitude is kept in −180…<180 (`180` is written `-180`), so two
/// spellings of one meridian compare equal.
///
/// Thread safety: a value.
public struct GeoPoint: Sendable, Hashable, CustomStringConvertible {
    public let latitude: Double
    public let longitude: Double

    /// The point at `latitude`, `longitude` (any longitude: it is wrapped into −180…<180); nil
    /// when a coordinate is not finite or the latitude is outside −90…90.
    public init?(latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude) else { return nil }
        self.latitude = latitude
        self.longitude = Self.wrapped(longitude)
    }

    /// `longitude` wrapped into −180…<180.
    static func wrapped(_ longitude: Double) -> Double {
        var wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        return wrapped - 180
    }

    public var description: String { "\(latitude), \(longitude)" }
}
