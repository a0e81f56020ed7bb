import EscrowLocation
import EscrowStore
import Foundation

// Issue 15: what masking one point costs (target ≤ 2 µs; the Location Privacy Framework thesis
// adds about 10 µs per request) — the donut draw alone, and a flow's masker at 1km and at city.
extension Suite {
    /// Points per figure and repetition.
    static let maskPointCount = 20_000

    /// Per repetition, new masks and maskers (so the first pass meets every cell anew):
    /// - `LocationMask.mask`, the deterministic donut draw alone (an HMAC-SHA-256 and the
    ///   great-circle destination), on points uniform over the sphere;
    /// - `GeoMasker.mask` at 1km over a walk around Chicago (RecordGenerator's track, 20,000
    ///   fixes a minute apart): the first pass, where each new cell's radius needs a population
    ///   estimate over the place table, then the same points again, the radii known (a person
    ///   who stays in their places);
    /// - `GeoMasker.mask` at city over the same walk (the nearest city of 15,000+).
    func locationMaskPoints() async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let places = try PlaceTable.bundled()
        let secret = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        var random = SeededGenerator(seed: 0x15_0002)
        let world = (0..<Self.maskPointCount).compactMap { _ in
            GeoPoint(latitude: asin(Double.random(in: -1..<1, using: &random)) * 180 / .pi,
                     longitude: Double.random(in: -180..<180, using: &random))
        }
        let track = RecordGenerator.locations(Self.maskPointCount).compactMap {
            GeoPoint(latitude: $0.latitude, longitude: $0.longitude)
        }
        guard world.count == Self.maskPointCount, track.count == Self.maskPointCount else {
            throw BenchError("the generated points are not all valid coordinates")
        }

        struct Sample { var donut = 0.0, firstPass = 0.0, known = 0.0, city = 0.0 }
        let samples = try await sampler.collect(
            setUp: { () throws -> (LocationMask, GeoMasker, GeoMasker) in
                (try LocationMask(secret: secret, flow: "bench-flow", accuracy: 1000, minimum: 100),
                 try GeoMasker(secret: secret, flow: "bench-flow", level: .radius(1000), minimumShare: 0.1, k: 10, places: places),
                 try GeoMasker(secret: secret, flow: "bench-flow", level: .city, minimumShare: 0.1, k: 10, places: places))
            },
            body: { masks -> Sample in
                let (donut, radius, city) = masks
                var sink = 0.0
                func perPoint(_ points: [GeoPoint], _ mask: (GeoPoint) -> GeoPoint) -> Double {
                    let elapsed = clock.measure {
                        for point in points {
                            let masked = mask(point)
                            sink += masked.latitude + masked.longitude
                        }
                    }
                    return elapsed.seconds / Double(points.count)
                }
                var sample = Sample()
                sample.donut = perPoint(world) { donut.mask($0) }
                sample.firstPass = perPoint(track) { radius.mask($0).point }
                sample.known = perPoint(track) { radius.mask($0).point }
                sample.city = perPoint(track) { city.mask($0).point }
                guard sink.isFinite, sink != 0 else { throw BenchError("the masked points do not add up: \(sink)") }
                return sample
            },
            tearDown: { _ in }
        )
        return [
            FigureResult(name: "mask a point: LocationMask (donut draw), random points", unit: .microseconds,
                         seconds: samples.map(\.donut), target: 2),
            FigureResult(name: "mask a point: GeoMasker 1km, a walk, first pass (new cells)", unit: .microseconds,
                         seconds: samples.map(\.firstPass)),
            FigureResult(name: "mask a point: GeoMasker 1km, a walk, cells known", unit: .microseconds,
                         seconds: samples.map(\.known), target: 2),
            FigureResult(name: "mask a point: GeoMasker city, a walk", unit: .microseconds, seconds: samples.map(\.city)),
        ]
    }
}
