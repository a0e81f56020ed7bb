/// One populated place of the bundled GeoNames table (`PlaceTable`): where it is, how many people
/// live there, and the country and region it belongs to.
///
/// Thread safety: a value.
public struct Place: Sendable, Hashable {
    /// The place's coordinates, to 1e-4 degree (about 11 m).
    public let point: GeoPoint
    /// Its population as GeoNames records it; 0 when GeoNames does not know it.
    public let population: Int
    /// Its country's ISO 3166 alpha-2 code, e.g. "FR".
    public let country: String
    /// Its first-level administrative region: the country code, a dot and GeoNames' admin1 code,
    /// e.g. "FR.11" (Île-de-France); the country code alone for the few places GeoNames gives no
    /// admin1 code.
    public let region: String
    /// Its name, present for the cities (population of at least 15,000: `PlaceTable.cityPopulation`).
    public let name: String?

    public init(point: GeoPoint, population: Int, country: String, region: String, name: String?) {
        self.point = point
        self.population = population
        self.country = country
        self.region = region
        self.name = name
    }
}

/// How coarsely `PlaceTable.aggregate(_:level:)` reports a point.
///
/// Thread safety: a value.
public enum AggregationLevel: Sendable, Hashable, CaseIterable {
    /// The nearest city (population of at least 15,000).
    case city
    /// The first-level administrative region of the nearest city (a French région, a US state).
    case region
    /// The country of the nearest city.
    case country
}

/// A point reported at an `AggregationLevel`: a representative point, the population it stands
/// for, and a label a person can read.
///
/// Thread safety: a value.
public struct Aggregate: Sendable, Hashable {
    /// For a city its own coordinates; for a region or a country the population-weighted centroid
    /// of all the table's places in it.
    public let point: GeoPoint
    /// The city's population, or the total of the table's places in the region or country (only
    /// people in places of 1,000+ are counted: see `PlaceTable`).
    public let population: Int
    /// "Paris, FR" for a city, "region FR.11" for a region, "France" for a country.
    public let label: String

    public init(point: GeoPoint, population: Int, label: String) {
        self.point = point
        self.population = population
        self.label = label
    }
}
