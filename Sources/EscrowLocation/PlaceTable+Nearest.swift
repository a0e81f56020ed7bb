/// Nearest-place queries: the nearest city, a point aggregated to its city, region or country, and
/// well-spaced nearby places (dummy locations).
extension PlaceTable {
    /// Half the Earth's circumference: no two points are farther apart.
    static let farthest = Double.pi * GreatCircle.earthRadius
    /// The radius a nearest search starts with, about one grid cell.
    static let firstSearchRadius = 50_000.0

    /// The nearest city (population of at least 15,000) to `point`, by great-circle distance; of
    /// cities equally near, the one first in the table.
    ///
    /// - Returns: nil only when the table has no city.
    public func nearestCity(to point: GeoPoint) -> Place? {
        nearestCityIndex(to: point).map(place)
    }

    /// `point` reported at `level`: the nearest city; its region (population-weighted centroid,
    /// total population); or its country (the same). A point is always given to the region and
    /// country of its nearest city, which near a border may be the neighbour's.
    ///
    /// - Returns: nil only when the table has no city.
    public func aggregate(_ point: GeoPoint, level: AggregationLevel) -> Aggregate? {
        guard let city = nearestCityIndex(to: point) else { return nil }
        let region = regions[city], country = regionCountries[region]
        switch level {
        case .city:
            return Aggregate(point: points[city], population: populations[city],
                             label: "\(names[city] ?? regionCodes[region]), \(countryCodes[country])")
        case .region:
            return Aggregate(point: regionCentroids[region] ?? points[city], population: regionTotals[region],
                             label: "region \(regionCodes[region])")
        case .country:
            return Aggregate(point: countryCentroids[country] ?? points[city], population: countryTotals[country],
                             label: countryNames[country])
        }
    }

    /// The `count` places nearest to `point` that lie at least `minimum` meters from it and from
    /// each other, nearest first: places are taken by increasing distance from `point` (the table's
    /// order among equals), each kept when it is at least `minimum` from every place kept before.
    /// Only places with a known population (above 0) are taken. These are the dummy locations of a
    /// k-anonymous request: real places, none of them the individual's own surroundings.
    ///
    /// - Parameters:
    ///   - point: where the individual is.
    ///   - count: how many places to return.
    ///   - minimum: the least distance, in meters, from `point` and between the places.
    /// - Returns: `count` places, or fewer only when the whole table holds fewer so spaced (none
    ///   for a `minimum` that is no number).
    ///
    /// Meant for a few to a few dozen places: checking the spacing costs `count` distances per
    /// place taken.
    public func nearestPlaces(to point: GeoPoint, count: Int, apartFrom minimum: Double) -> [Place] {
        guard count > 0, !minimum.isNaN else { return [] }
        var kept: [Int] = []
        var done = -1.0
        var radius = max(Self.firstSearchRadius, 2 * minimum)
        // Rounds of a growing cap: each takes, in order, the places farther than the last round's
        // radius and within its own, so places are considered by increasing distance overall.
        while kept.count < count, done < Self.farthest {
            let last = radius >= Self.farthest
            var candidates: [(distance: Double, index: Int)] = []
            populated.forEachCandidate(near: point, within: last ? Self.farthest * 2 : radius) { index in
                let distance = GreatCircle.distance(point, points[index])
                if distance > done, last || distance <= radius, distance >= minimum { candidates.append((distance, index)) }
            }
            candidates.sort { ($0.distance, $0.index) < ($1.distance, $1.index) }
            for candidate in candidates where kept.count < count {
                let spaced = minimum <= 0 || kept.allSatisfy { GreatCircle.distance(points[$0], points[candidate.index]) >= minimum }
                if spaced { kept.append(candidate.index) }
            }
            done = last ? Self.farthest : radius
            radius = min(Self.farthest, radius * 2)
        }
        return kept.map(place)
    }

    func nearestCityIndex(to point: GeoPoint) -> Int? {
        var radius = Self.firstSearchRadius
        while true {
            var best: (distance: Double, index: Int)?
            cities.forEachCandidate(near: point, within: radius) { index in
                let distance = GreatCircle.distance(point, points[index])
                if let current = best, (current.distance, current.index) <= (distance, index) { return }
                best = (distance, index)
            }
            // Every place within `radius` was a candidate, so one nearer than the best found lies
            // farther than `radius`, hence farther than the best: the best is the nearest.
            if let best, best.distance <= radius { return best.index }
            if radius >= Self.farthest { return best?.index }
            // A candidate beyond the radius bounds the answer: a cap reaching it finishes the search.
            radius = min(Self.farthest, best?.distance ?? radius * 2)
        }
    }
}
