import EscrowCore
import EscrowLocation
import EscrowStore
import Synchronization

/// What a run's access reads of the location: the views to run it over (the first is the real
/// one; nil is the stored location, exact) and the facts for the audit entry.
struct LocationPlan: Sendable {
    /// One access per view; more than one when k−1 dummy inputs hide the real one.
    let views: [LocationView?]
    /// Nil when the flow's SQL reads no location.
    let facts: AuditLocation?

    static let unmasked = LocationPlan(views: [nil], facts: nil)
}

extension EscrowHost {
    /// The location plan of a run of `flow` at `accuracy` (docs/LOCATION.md).
    ///
    /// - Throws: `StoreError` when the location secret or the settings cannot be read,
    ///   `SettingError` for a stored setting out of range, `PlaceTableError` when the
    ///   bundled places cannot be decoded, `LocationMaskError` when the mask cannot be made.
    func locationPlan(for flow: Dataflow, accuracy: LocationAccuracy) throws -> LocationPlan {
        let reads = flow.lineage.sorted.map(\.description)
        guard reads.contains(where: LocationColumns.locates) else { return .unmasked }
        guard accuracy != .exact else {
            return LocationPlan(views: [nil], facts: AuditLocation(accuracy: accuracy.description))
        }
        let settings = try LocationSettings.read(flows.state)
        let level: MaskLevel = switch accuracy {
        case .exact, .radius: .radius(Double(accuracy.meters ?? 0))
        case .city: .city
        case .region: .region
        case .country: .country
        }
        let prefix = "\(flow.identity.key)|\(accuracy)|k\(settings.k)|r\(settings.minimumPercent)"
        let secret = try LocationSecret.load(home)
        let masker = try maskers.masker(for: MaskerCache.Key(view: prefix, secret: secret)) { () throws in
            try GeoMasker(secret: secret, flow: flow.identity.key, level: level,
                          minimumShare: Double(settings.minimumPercent) / 100, k: settings.k, places: try PlaceTable.bundled())
        }
        let readsTable = reads.contains { $0.hasPrefix("\(LocationColumns.table).") }
        let copied = Set(reads.compactMap { $0.split(separator: ".").first.map(String.init) }).intersection(LocationView.tables)
        let latest = try connection.withLock { connection throws(StoreError) in
            try connection.latestLocation(fromLocationTable: readsTable)
        }.flatMap { GeoPoint(latitude: $0.latitude, longitude: $0.longitude) }
        let horizontalAccuracy = accuracy.meters.map(Double.init)
        let real = LocationView(id: prefix, horizontalAccuracy: horizontalAccuracy, copying: copied) { latitude, longitude in
            guard let truth = GeoPoint(latitude: latitude, longitude: longitude) else { return (.nan, .nan) }
            let masked = masker.mask(truth).point
            return (masked.latitude, masked.longitude)
        }
        guard let latest else {
            return LocationPlan(views: [real], facts: AuditLocation(accuracy: accuracy.description))
        }
        let masked = masker.mask(latest)
        var views: [LocationView?] = [real]
        if masker.isSparse(latest) {
            // Each dummy input is the individual's data moved near another populated place, shape
            // and all (every point keeps its bearing and distance from the latest one), then
            // masked at the full radius as the real one is: the requests look alike, and each is
            // stable over runs.
            for (index, origin) in masker.dummyOrigins(for: latest).enumerated() {
                views.append(LocationView(id: "\(prefix)|dummy \(index) at \(origin)", horizontalAccuracy: horizontalAccuracy,
                                          copying: copied) { latitude, longitude in
                    guard let point = GeoPoint(latitude: latitude, longitude: longitude) else { return (.nan, .nan) }
                    let moved = GreatCircle.destination(from: origin, bearing: GreatCircle.bearing(from: latest, to: point),
                                                        distance: GreatCircle.distance(latest, point))
                    let masked = masker.maskAtApprovedRadius(moved)
                    return (masked.latitude, masked.longitude)
                })
            }
        }
        let facts = AuditLocation(accuracy: accuracy.description, radius: masked.radius,
                                  k: Int(min(masked.people.rounded(.down), 1e15)), runs: views.count)
        return LocationPlan(views: views, facts: facts)
    }
}

extension LocationAccuracy {
    /// The radius in meters, for a radius accuracy.
    var meters: Int? {
        if case .radius(let meters) = self { return meters }
        return nil
    }
}

/// A k-anonymous run that did not complete: the real run or a run on a dummy location failed, so
/// the app's service saw fewer look-alike requests than planned. The app gets no output; the
/// audit entry records how many runs completed.
public struct KAnonymityError: Error, Sendable, CustomStringConvertible {
    /// Runs that completed, of `of` started.
    public let completed: Int
    public let of: Int
    /// The first failure.
    public let failure: any Error
    /// Whether the failed run was the real one.
    public let real: Bool

    public var description: String {
        if real {
            return "the run on your masked location failed (\(failure)); \(completed) of \(of) runs completed"
        }
        return "a k-anonymous run is incomplete: \(completed) of \(of) runs completed (a run on a dummy location failed: "
            + "\(failure)), so the app gets no output — its service would have seen your request among fewer than planned; "
            + "try again, or lower location.k (`escrow config set location.k N`)"
    }
}

/// The maskers of recent flows, kept between runs: a masker caches the radius of every cell it
/// has met (each a population estimate over the place table, milliseconds in a city), so a flow
/// asked again from the same place costs microseconds. Bounded; a full cache starts over.
final class MaskerCache: Sendable {
    struct Key: Hashable, Sendable {
        /// The flow, accuracy and settings (`LocationView.id` of the real view).
        let view: String
        /// The home's secret as read for this run: a restored secret gets a new masker.
        let secret: [UInt8]
    }

    static let capacity = 64
    private let maskers = Mutex<[Key: GeoMasker]>([:])

    func masker(for key: Key, make: () throws -> GeoMasker) throws -> GeoMasker {
        if let known = maskers.withLock({ $0[key] }) { return known }
        let made = try make()
        maskers.withLock { maskers in
            if maskers.count >= Self.capacity { maskers.removeAll() }
            maskers[key] = made
        }
        return made
    }
}
