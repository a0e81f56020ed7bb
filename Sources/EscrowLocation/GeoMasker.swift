import Foundation
import Synchronization

/// How precisely a masked location may show where the individual is: within a radius, or the
/// centre of their city, region or country.
public enum MaskLevel: Sendable, Hashable {
    /// A point at most this many meters from the truth.
    case radius(Double)
    case city
    case region
    case country
}

/// Masks locations for one flow at one accuracy, as the Location Privacy Framework thesis's
/// Algorithm 1 does, made deterministic (`LocationMask`):
///
/// * **Radius A**: the outer radius R grows from twice the t-closeness minimum r (a share of A)
///   until the area around the truth's cell is estimated to hold k people (`PlaceTable`), up to
///   A; R is rounded up to a ladder of steps (×√2) so one cell gets one R. The masked point is
///   `LocationMask(accuracy: R, minimum: r)`: at least r and at most R ≤ A from the truth, the
///   same while the individual stays in its cell. Where even A holds fewer than k people, the
///   area is *sparse*: the host then also runs the function on k−1 dummy locations.
/// * **City, region, country**: the nearest city's coordinates, or the population-weighted
///   centre of its region or country; the population is the k achieved.
///
/// Thread safety: `Sendable`; its caches (a mask per radius, the radius per cell) are behind a lock.
public final class GeoMasker: Sendable {
    /// A masked point, the outer radius it was drawn within (nil for city, region, country) and
    /// the people the area is estimated to hold.
    public struct Masked: Sendable, Hashable {
        public let point: GeoPoint
        public let radius: Double?
        public let people: Double
    }

    private enum Mode: Sendable {
        /// The approved radius, and the mask at it: its grid decides the cell R is computed for.
        case radius(accuracy: Double, outer: LocationMask)
        case aggregate(AggregationLevel)
    }

    public let level: MaskLevel
    public let k: Int
    /// The t-closeness minimum, in meters (0 for city, region, country).
    public let minimum: Double
    private let secret: [UInt8]
    private let flow: String
    private let places: PlaceTable
    private let mode: Mode
    private let masks = Mutex<[Int: LocationMask]>([:])
    private let radii = Mutex<[GeoPoint: Radius]>([:])

    /// The ladder step of a cell's radius (nil: even the approved radius holds fewer than k
    /// people) and the people it holds.
    private struct Radius: Sendable {
        let step: Int?
        let people: Double
    }

    /// - Parameters:
    ///   - secret: the escrow home's location secret (32 bytes or more).
    ///   - flow: the flow's identity (its key): another flow gets other points.
    ///   - minimumShare: r as a share of the approved radius (0 < share < 1).
    ///   - k: the people a masked area should hold (1: no dummy runs).
    /// - Throws: `LocationMaskError` for a short secret or radii a mask cannot take.
    public init(secret: [UInt8], flow: String, level: MaskLevel, minimumShare: Double, k: Int,
                places: PlaceTable) throws(LocationMaskError) {
        guard secret.count >= 32 else { throw .shortSecret(secret.count) }
        self.level = level
        self.k = max(1, k)
        self.secret = secret
        self.flow = flow
        self.places = places
        switch level {
        case .radius(let accuracy):
            guard minimumShare > 0, minimumShare < 1 else { throw .invalidRadii(minimum: minimumShare * accuracy, accuracy: accuracy) }
            minimum = accuracy * minimumShare
            mode = .radius(accuracy: accuracy, outer: try LocationMask(secret: secret, flow: flow, accuracy: accuracy, minimum: minimum))
        case .city:
            minimum = 0
            mode = .aggregate(.city)
        case .region:
            minimum = 0
            mode = .aggregate(.region)
        case .country:
            minimum = 0
            mode = .aggregate(.country)
        }
    }

    /// The masked point for `truth`.
    public func mask(_ truth: GeoPoint) -> Masked {
        switch mode {
        case .radius(let accuracy, let outer):
            let found = radius(at: outer.cellCenter(of: truth), accuracy: accuracy)
            let people = found.people
            guard let step = found.step else { return Masked(point: outer.mask(truth), radius: accuracy, people: people) }
            let radius = stepRadius(step, accuracy: accuracy)
            return Masked(point: mask(step: step, radius: radius, outer: outer).mask(truth), radius: radius, people: people)
        case .aggregate(let level):
            // The bundled table is never empty (checked when decoded); were it empty, the answer
            // would be the point 0, 0, never the truth.
            guard let aggregate = places.aggregate(truth, level: level) else {
                return Masked(point: GeoPoint(latitude: 0, longitude: 0) ?? truth, radius: nil, people: 0)
            }
            return Masked(point: aggregate.point, radius: nil, people: Double(aggregate.population))
        }
    }

    /// Whether the approved radius around `truth` is estimated to hold fewer than k people:
    /// then the function should also run on k−1 dummy locations. Never for city, region or
    /// country, or with k = 1.
    public func isSparse(_ truth: GeoPoint) -> Bool {
        guard k > 1, case .radius(let accuracy, let outer) = mode else { return false }
        return radius(at: outer.cellCenter(of: truth), accuracy: accuracy).step == nil
    }

    /// k−1 origins for dummy inputs, each as far from a populated place as `truth` is from its
    /// nearest one: near each of the k−1 nearest places at least 2A + 2d from `truth` and from
    /// each other (d: that distance), at d in a direction drawn from the secret and the place (the
    /// same every run). Dummies *at* towns would stand out against a truth far from any: anyone
    /// holding GeoNames' table could pick the real request as the one no town is near.
    public func dummyOrigins(for truth: GeoPoint) -> [GeoPoint] {
        guard k > 1, case .radius(let accuracy, _) = mode else { return [] }
        let distance = places.nearestPlaces(to: truth, count: 1, apartFrom: 0).first.map { GreatCircle.distance(truth, $0.point) } ?? 0
        return places.nearestPlaces(to: truth, count: k - 1, apartFrom: 2 * accuracy + 2 * distance).map { place in
            // Up to 16 directions, until one lands about as far from every other place too.
            var candidate = place.point
            for attempt in 0..<16 {
                let code = LocationMask.code(secret, ["escrow.location-dummy.v1", flow, "\(place.point)", "\(attempt)"])
                let bearing = LocationMask.units(code).0 * 360
                candidate = GreatCircle.destination(from: place.point, bearing: bearing, distance: distance)
                let nearest = places.nearestPlaces(to: candidate, count: 1, apartFrom: 0).first
                if nearest.map({ GreatCircle.distance(candidate, $0.point) >= 0.8 * distance }) ?? true { break }
            }
            return candidate
        }
    }

    /// A dummy input's point, masked at the full approved radius as the real one is in a sparse
    /// area (the adaptive radius near a town would be smaller and give the dummy away).
    public func maskAtApprovedRadius(_ point: GeoPoint) -> GeoPoint {
        switch mode {
        case .radius(_, let outer): outer.mask(point)
        case .aggregate: mask(point).point
        }
    }

    // MARK: The adaptive radius

    /// The ladder step of the smallest radius from 2r holding k people around `center` (nil:
    /// none up to the approved radius), and the people it holds.
    private func radius(at center: GeoPoint, accuracy: Double) -> Radius {
        if let known = radii.withLock({ $0[center] }) { return known }
        let lower = min(2 * minimum, accuracy)
        let found: Radius
        if let needed = places.radius(holding: Double(k), around: center, from: lower, upTo: accuracy) {
            // Rounded up to the ladder lower·√2^j, capped at the approved radius.
            let step = max(0, Int((2 * log2(max(needed, lower) / lower)).rounded(.up)))
            found = Radius(step: step, people: places.people(within: stepRadius(step, accuracy: accuracy), of: center))
        } else {
            found = Radius(step: nil, people: places.people(within: accuracy, of: center))
        }
        radii.withLock { $0[center] = found }
        return found
    }

    private func stepRadius(_ step: Int, accuracy: Double) -> Double {
        min(accuracy, min(2 * minimum, accuracy) * pow(2, Double(step) / 2))
    }

    private func mask(step: Int, radius: Double, outer: LocationMask) -> LocationMask {
        if let mask = masks.withLock({ $0[step] }) { return mask }
        let mask: LocationMask
        do {
            mask = try LocationMask(secret: secret, flow: flow, accuracy: radius, minimum: minimum)
        } catch {
            // Cannot happen: minimum < 2·minimum ≤ radius ≤ the approved radius the outer mask
            // took. The outer mask keeps the bounds all the same.
            mask = outer
        }
        masks.withLock { $0[step] = mask }
        return mask
    }
}
