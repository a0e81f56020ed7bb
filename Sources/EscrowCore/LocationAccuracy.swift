/// How precisely a dataflow may see where the individual is: part of the individual's approval,
/// and something an app may ask for.
///
/// From finest to coarsest: `exact`, a radius (`500m`, `1km`: the answer lies within that distance
/// of the truth, never nearer than a minimum), `city` (the centre of the nearest city), `region`
/// (the centre of its region), `country`. A radius of up to `maximumRadius` counts as finer than
/// `city`.
public enum LocationAccuracy: Sendable, Hashable, CustomStringConvertible {
    /// The coordinates as stored.
    case exact
    /// A point within this many meters of the truth.
    case radius(meters: Int)
    /// The centre of the nearest city.
    case city
    /// The centre of the region (the first administrative level: state, province) of the nearest city.
    case region
    /// The centre of the country of the nearest city.
    case country

    /// The smallest radius an approval may name, in meters: below it the mask's minimum distance
    /// from the truth would be a few meters, within the error of GPS itself.
    public static let minimumRadius = 100
    /// The largest radius, in meters; coarser than that is `city`, `region` or `country`.
    public static let maximumRadius = 100_000

    /// Reads `exact`, `city`, `region`, `country`, `<N>m` or `<N>km` (`500m`, `1km`, `2.5km`,
    /// `750 m`; case and surrounding spaces do not matter).
    ///
    /// - Throws: `LocationAccuracyError` naming what is wrong and what is accepted.
    public init(parsing text: String) throws(LocationAccuracyError) {
        // Words of ASCII spaces and tabs: one word, or a number and its unit.
        let words = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count == 1 || (words.count == 2 && (words[1] == "m" || words[1] == "km")) else { throw .unknown(text) }
        let word = words.joined()
        switch word {
        case "exact": self = .exact
        case "city": self = .city
        case "region": self = .region
        case "country": self = .country
        default:
            let (digits, scale): (Substring, Double) = if word.hasSuffix("km") {
                (word.dropLast(2), 1000)
            } else if word.hasSuffix("m") {
                (word.dropLast(1), 1)
            } else {
                throw .unknown(text)
            }
            // Plain decimal digits only: no signs, exponents, `nan` or `inf`.
            guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                  digits.filter({ $0 == "." }).count <= 1, let number = Double(digits), number.isFinite else {
                throw .unknown(text)
            }
            let meters = (number * scale).rounded()
            guard meters >= Double(Self.minimumRadius), meters <= Double(Self.maximumRadius) else {
                throw .radiusOutOfRange(text)
            }
            self = .radius(meters: Int(meters))
        }
    }

    /// The spelling `init(parsing:)` reads back: `exact`, `500m`, `1km`, `2.5km`, `city`.
    public var description: String {
        switch self {
        case .exact: "exact"
        case .city: "city"
        case .region: "region"
        case .country: "country"
        case .radius(let meters):
            if meters % 1000 == 0 {
                "\(meters / 1000)km"
            } else if meters >= 1000 && meters % 100 == 0 {
                "\(meters / 1000).\(meters % 1000 / 100)km"
            } else {
                "\(meters)m"
            }
        }
    }

    /// What the app gets, in the individual's words: "your exact location", "a point within 1 km
    /// of your location", "the centre of your city".
    public var plainWords: String {
        switch self {
        case .exact: "your exact location"
        case .radius(let meters):
            "a point within \(meters % 1000 == 0 ? "\(meters / 1000) km" : meters >= 1000 ? "\(Double(meters) / 1000) km" : "\(meters) m") of your location"
        case .city: "the centre of your city"
        case .region: "the centre of your region"
        case .country: "the centre of your country"
        }
    }

    /// Position from finest (0) to coarsest: radii by their size, all finer than `city`.
    private var coarseness: Int {
        switch self {
        case .exact: 0
        case .radius(let meters): 1 + meters
        case .city: 1 + Self.maximumRadius + 1
        case .region: 1 + Self.maximumRadius + 2
        case .country: 1 + Self.maximumRadius + 3
        }
    }

    /// Whether this accuracy shows less than `other`.
    public func isCoarser(than other: LocationAccuracy) -> Bool {
        coarseness > other.coarseness
    }

    /// The coarser of two accuracies: what applies when an app asks for one and the individual
    /// approved the other (an app that asks for less gets less; one that asks for more gets what
    /// the individual allowed).
    public static func coarser(_ a: LocationAccuracy, _ b: LocationAccuracy) -> LocationAccuracy {
        a.isCoarser(than: b) ? a : b
    }
}

/// A location accuracy that cannot be read.
public enum LocationAccuracyError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknown(String)
    case radiusOutOfRange(String)

    public var description: String {
        switch self {
        case .unknown(let text):
            "'\(DisplayText.escaped(String(text.prefix(40))))' is not a location accuracy; give exact, city, region, country, or a radius such as 500m or 2km"
        case .radiusOutOfRange(let text):
            "a location radius must be from \(LocationAccuracy.minimumRadius) m to \(LocationAccuracy.maximumRadius / 1000) km, not '\(DisplayText.escaped(String(text.prefix(40))))'; for coarser, give city, region or country"
        }
    }
}
