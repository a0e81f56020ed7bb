import Foundation

/// How many people live around a point, estimated from the places of the table.
///
/// The model: each place's population is spread evenly over a disc around its point, of radius
/// ρ = max(500 m, √(population / (π × 2,000 people per km²))), so a town of 10,000 covers about
/// 1.3 km and Paris's 2.1 million about 18 km; a query disc counts each place's population times
/// the fraction of the place's disc it overlaps (the planar area of the two discs' lens, with the
/// great-circle distance between their centres).
///
/// Its limits: only people GeoNames counts in places of 1,000+ are counted, so rural population is
/// missing (the estimate is low in the countryside and 0 far from towns); a city's people are
/// spread evenly over its disc whatever its shape; places near each other overlap, as suburbs
/// counted on their own do.
extension PlaceTable {
    /// The people per square meter a place's population is spread at (2,000 per km²).
    static let spreadDensity = 2_000.0 / 1_000_000
    /// The least radius of a place's disc, in meters.
    static let leastSpread = 500.0

    /// The radius of the disc a place of `population` people is spread over, in meters.
    static func spread(of population: Int) -> Double {
        max(leastSpread, (Double(population) / (Double.pi * spreadDensity)).squareRoot())
    }

    /// An estimate of how many people live within `radius` meters of `point` (see the model above):
    /// the sum over places of population × the fraction of the place's disc inside the query disc.
    /// It never decreases as `radius` grows.
    ///
    /// - Parameters:
    ///   - radius: the query disc's radius, in meters (0 or less gives 0).
    ///   - point: the query disc's centre.
    /// - Returns: the estimated number of people (not rounded).
    public func people(within radius: Double, of point: GeoPoint) -> Double {
        guard radius > 0 else { return 0 }
        var total = 0.0
        populated.forEachCandidate(near: point, within: radius + widestSpread) { index in
            let population = populations[index]
            let spread = Self.spread(of: population)
            let distance = GreatCircle.distance(point, points[index])
            guard distance < radius + spread else { return }
            total += Double(population) * Self.lens(radius, spread, distance) / (Double.pi * spread * spread)
        }
        return total
    }

    /// The smallest radius in `lower...upper` whose `people(within:of:)` estimate is at least
    /// `people`, to 0.5 % (or 1 m, whichever is larger), found by bisection (the estimate grows with
    /// the radius). The radius returned always holds at least `people`.
    ///
    /// - Parameters:
    ///   - people: how many people the disc must hold.
    ///   - point: the disc's centre.
    ///   - lower: the least radius to return, in meters.
    ///   - upper: the greatest radius to try, in meters.
    /// - Returns: the radius, `lower` when it already holds enough; nil when even `upper` holds
    ///   fewer than `people`, when `lower` is above `upper`, or when either is not finite.
    public func radius(holding people: Double, around point: GeoPoint, from lower: Double, upTo upper: Double) -> Double? {
        guard lower.isFinite, upper.isFinite else { return nil }
        let lower = max(0, lower)
        guard lower <= upper, self.people(within: upper, of: point) >= people else { return nil }
        if self.people(within: lower, of: point) >= people { return lower }
        // Invariant: `low` holds fewer than `people`, `high` at least as many.
        var low = lower, high = upper
        while high - low > max(1, 0.005 * high) {
            let middle = low + (high - low) / 2
            if self.people(within: middle, of: point) >= people { high = middle } else { low = middle }
        }
        return high
    }

    /// The area two discs of radii `a` and `b` whose centres lie `distance` apart have in common.
    static func lens(_ a: Double, _ b: Double, _ distance: Double) -> Double {
        if distance >= a + b { return 0 }
        if distance <= abs(a - b) { return Double.pi * min(a, b) * min(a, b) }
        let alpha = acos(max(-1, min(1, (distance * distance + a * a - b * b) / (2 * distance * a))))
        let beta = acos(max(-1, min(1, (distance * distance + b * b - a * a) / (2 * distance * b))))
        let kite = (-distance + a + b) * (distance + a - b) * (distance - a + b) * (distance + a + b)
        return a * a * alpha + b * b * beta - 0.5 * max(0, kite).squareRoot()
    }
}
