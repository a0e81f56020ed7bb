import Foundation

/// Distances and destinations on the Earth taken as a sphere of radius `earthRadius`: the
/// geometry location masks are measured in. Exact near the poles and across the antimeridian
/// (no flat-map shortcut), and within about 0.5 % of the ellipsoid's distances anywhere.
///
/// Thread safety: pure functions.
public enum GreatCircle {
    /// The Earth's mean radius (IUGG), in meters.
    public static let earthRadius = 6_371_008.8

    /// The great-circle distance between `a` and `b`, in meters (haversine: exact for small
    /// distances too).
    public static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let φ1 = radians(a.latitude), φ2 = radians(b.latitude)
        let Δφ = φ2 - φ1, Δλ = radians(b.longitude - a.longitude)
        let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// The point `distance` meters from `start` along the great circle leaving it at `bearing`
    /// degrees clockwise from north. Across a pole the path goes on down the other side;
    /// `distance` may be up to half the Earth's circumference.
    public static func destination(from start: GeoPoint, bearing: Double, distance: Double) -> GeoPoint {
        let δ = distance / earthRadius
        let θ = radians(bearing)
        let φ1 = radians(start.latitude), λ1 = radians(start.longitude)
        let sinφ2 = sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ)
        let φ2 = asin(max(-1, min(1, sinφ2)))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sinφ2)
        // Finite inputs give a finite latitude in −90…90, so the point exists.
        return GeoPoint(latitude: degrees(φ2), longitude: degrees(λ2)) ?? start
    }

    /// The initial bearing from `a` to `b`, degrees clockwise from north in 0..<360 (0 when the
    /// points coincide or `a` is a pole's point of view with no north).
    public static func bearing(from a: GeoPoint, to b: GeoPoint) -> Double {
        let φ1 = radians(a.latitude), φ2 = radians(b.latitude), Δλ = radians(b.longitude - a.longitude)
        let y = sin(Δλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(Δλ)
        guard x != 0 || y != 0 else { return 0 }
        let θ = degrees(atan2(y, x))
        return θ < 0 ? θ + 360 : θ
    }

    static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
    static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
}
