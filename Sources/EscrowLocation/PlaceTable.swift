import Foundation

/// The populated places of the world, from GeoNames' cities of 1,000+ people (170,391 places,
/// 34,024 of them cities of 15,000+), compiled into escrow: where people live, to aggregate a
/// point to its city, region or country, to estimate how many people live around a point, and to
/// pick real places as dummy locations.
///
/// The table is the file scripts/make-places.sh writes (format in `PlaceFile`), embedded in the
/// binary at build time, so an installed escrow carries it wherever it is copied. Its data is
/// GeoNames' (https://www.geonames.org/, CC BY 4.0): docs/LOCATION.md has the attribution.
///
/// Lookups go through a grid index of about 55 km cells (`PlaceGrid`) and never scan the table.
/// Distances are great-circle distances (`GreatCircle`), right across the antimeridian and near
/// the poles.
///
/// Thread safety: immutable after `init`; share one table between any number of threads
/// (`bundled()` does).
public final class PlaceTable: Sendable {
    /// The format version of the place table file this build reads.
    public static let formatVersion = 1
    /// The population from which a place counts as a city (and carries a name in the table).
    public static let cityPopulation = 15_000

    let points: [GeoPoint]
    let populations: [Int]
    /// Per place, the index of its region.
    let regions: [Int]
    let names: [String?]
    let regionCodes: [String]
    /// Per region, the index of its country.
    let regionCountries: [Int]
    let countryCodes: [String]
    let countryNames: [String]
    let regionTotals: [Int]
    /// Per region, the population-weighted centroid of its places (nil for a region without any).
    let regionCentroids: [GeoPoint?]
    let countryTotals: [Int]
    let countryCentroids: [GeoPoint?]
    /// The cities, indexed.
    let cities: PlaceGrid
    /// The places with a known population (above 0), indexed.
    let populated: PlaceGrid
    /// The widest disc any place's population is spread over (`spread(of:)`), in meters.
    let widestSpread: Double

    /// Reads a place table from the bytes scripts/make-places.sh writes, checking every count,
    /// index and the CRC-32, and builds its index (a few tens of milliseconds in a release build).
    ///
    /// - Parameter bytes: the contents of a places.bin file.
    /// - Throws: `PlaceTableError` when the bytes are not a place table, of another version, cut
    ///   short or corrupt.
    public init(bytes: [UInt8]) throws(PlaceTableError) {
        let file = try PlaceFile(bytes: bytes)
        guard file.nameThreshold == Self.cityPopulation else {
            throw .invalid("names are given from population \(file.nameThreshold), not \(Self.cityPopulation)")
        }
        points = file.points
        populations = file.populations
        regions = file.regions
        names = file.names
        regionCodes = file.regionCodes
        regionCountries = file.regionCountries
        countryCodes = file.countryCodes
        countryNames = file.countryNames

        let placeCountries = file.regions.map { file.regionCountries[$0] }
        (regionTotals, regionCentroids) = Self.centroids(of: file.regions, groups: file.regionCodes.count,
                                                         points: file.points, populations: file.populations)
        (countryTotals, countryCentroids) = Self.centroids(of: placeCountries, groups: file.countryCodes.count,
                                                           points: file.points, populations: file.populations)
        let indices = file.points.indices
        cities = PlaceGrid(points: file.points, indices: indices.filter { file.populations[$0] >= Self.cityPopulation })
        populated = PlaceGrid(points: file.points, indices: indices.filter { file.populations[$0] > 0 })
        widestSpread = Self.spread(of: file.populations.max() ?? 0)
    }

    /// The table compiled into this binary, decoded on first use and shared after: every call in a
    /// process returns the same instance (or the same error).
    ///
    /// - Throws: `PlaceTableError` only if the binary is damaged (the table is checked when escrow
    ///   is built and tested).
    ///
    /// Thread safety: callable from any thread; the first call decodes, concurrent first calls
    /// wait for it.
    public static func bundled() throws(PlaceTableError) -> PlaceTable {
        try bundledTable.get()
    }

    /// The number of places.
    public var count: Int { points.count }

    /// The place at `index`, in the table's order (GeoNames id); `index` must be in 0..<count.
    public subscript(index: Int) -> Place { place(index) }

    func place(_ index: Int) -> Place {
        let region = regions[index]
        return Place(point: points[index], population: populations[index], country: countryCodes[regionCountries[region]],
                     region: regionCodes[region], name: names[index])
    }

    /// Per group, the total population and the population-weighted centroid of its places: the
    /// mean of their unit vectors in 3D, projected back to the sphere, so groups that straddle the
    /// antimeridian get a centroid among their places and not on the far side of the Earth. A place
    /// weighs its population, at least 1 (a region whose places have no known population gets
    /// their plain centroid). The centroid is nil only for a group without places.
    private static func centroids(of group: [Int], groups: Int, points: [GeoPoint],
                                  populations: [Int]) -> (totals: [Int], centroids: [GeoPoint?]) {
        var totals = [Int](repeating: 0, count: groups)
        var sums = [SIMD3<Double>](repeating: .zero, count: groups)
        var heaviest = [Int?](repeating: nil, count: groups)
        for (index, group) in group.enumerated() {
            totals[group] += populations[index]
            sums[group] += Double(max(1, populations[index])) * unitVector(points[index])
            if heaviest[group].map({ populations[index] > populations[$0] }) ?? true { heaviest[group] = index }
        }
        let centroids = sums.enumerated().map { group, sum -> GeoPoint? in
            guard let heaviest = heaviest[group] else { return nil }
            let length = (sum * sum).sum().squareRoot()
            // Places spread evenly around the sphere have no centroid: take the most populous one.
            guard length > 1e-9 * Double(max(1, totals[group])) else { return points[heaviest] }
            let latitude = GreatCircle.degrees(asin(max(-1, min(1, sum.z / length))))
            return GeoPoint(latitude: latitude, longitude: GreatCircle.degrees(atan2(sum.y, sum.x))) ?? points[heaviest]
        }
        return (totals, centroids)
    }

    static func unitVector(_ point: GeoPoint) -> SIMD3<Double> {
        let φ = GreatCircle.radians(point.latitude), λ = GreatCircle.radians(point.longitude)
        return SIMD3(cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
    }
}

/// The bundled table, decoded once per process: a global is initialised lazily, exactly once,
/// even when first read from several threads at a time.
private let bundledTable = Result<PlaceTable, PlaceTableError> { () throws(PlaceTableError) -> PlaceTable in
    guard let data = Data(base64Encoded: GeneratedPlaces.base64) else { throw .bundledNotBase64 }
    return try PlaceTable(bytes: [UInt8](data))
}
