import Foundation

/// A ring around a point on the sphere, between an inner radius (the t-closeness minimum: a
/// masked point is never nearer the truth) and an outer one (the approved accuracy): the area
/// donut geomasking draws a masked point from (the Location Privacy Framework thesis, Algorithm 1).
///
/// Points are spread evenly over the ring's *area* on the sphere, not over its radius: a point is
/// as likely in any square meter of the ring, so the outer part, which is larger, gets more of
/// them and the truth does not stand out as the centre of a cluster.
///
/// Thread safety: a value.
public struct Donut: Sendable, Hashable {
    public let center: GeoPoint
    /// Meters; at least 0.
    public let inner: Double
    /// Meters; at least `inner`, at most half the Earth's circumference.
    public let outer: Double

    /// The ring around `center` from `inner` to `outer` meters; nil when the radii are not
    /// finite, negative, out of order or longer than half the Earth's circumference.
    public init?(center: GeoPoint, inner: Double, outer: Double) {
        let longest = Double.pi * GreatCircle.earthRadius
        guard inner.isFinite, outer.isFinite, inner >= 0, inner <= outer, outer <= longest else { return nil }
        self.center = center
        self.inner = inner
        self.outer = outer
    }

    /// The point of the ring at `u` and `v` (each in 0…1): `u` picks the distance so that the
    /// share of the ring's area nearer than it is `u`, `v` the bearing (`v × 360°`). Uniform `u`
    /// and `v` give points uniform over the area; the same `u` and `v` give the same point.
    public func point(u: Double, v: Double) -> GeoPoint {
        GreatCircle.destination(from: center, bearing: 360 * clamped(v), distance: distance(at: u))
    }

    /// The distance from the centre below which a share `u` of the ring's area lies.
    ///
    /// A spherical cap of angular radius α has area 2πR²(1 − cos α) = 4πR² sin²(α/2), so the
    /// share of the ring within α is (s(α) − s(αᵢ)) / (s(αₒ) − s(αᵢ)) with s(α) = sin²(α/2);
    /// solved for α. (The half-angle form keeps its precision for rings of a few meters, where
    /// 1 − cos α would lose it.)
    public func distance(at u: Double) -> Double {
        let radius = GreatCircle.earthRadius
        func s(_ meters: Double) -> Double {
            let half = sin(meters / radius / 2)
            return half * half
        }
        let share = s(inner) + clamped(u) * (s(outer) - s(inner))
        let angle = 2 * asin(sqrt(max(0, min(1, share))))
        return min(outer, max(inner, radius * angle))
    }

    private func clamped(_ value: Double) -> Double {
        value.isFinite ? min(1, max(0, value)) : 0
    }
}
