import EscrowLocation
import EscrowTestSupport
import Foundation
import Testing

/// Great-circle geometry and the donut, over random points worldwide (poles, the antimeridian,
/// oceans and cities alike), and against distances known by hand.
@Suite struct GeometryTests {
    /// 10,000 points spread evenly over the sphere, plus the poles and points on the antimeridian.
    static func points(_ count: Int = 10_000, seed: UInt64 = 7) -> [GeoPoint] {
        var random = SplitMix64(seed: seed)
        var points = (0..<count).compactMap { _ in
            GeoPoint(latitude: asin(2 * random.nextUnit() - 1) * 180 / .pi, longitude: 360 * random.nextUnit() - 180)
        }
        points += [(90, 0), (-90, 0), (89.9999, 179.9999), (-89.9999, -179.9999), (0, 180), (0, -180), (65.5, 179.99),
                   (-16.5, -179.99), (51.4779, 0)].compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) }
        return points
    }

    @Test(arguments: [
        // Paris–London 343.6 km; JFK–LAX ~3,983 km; across the antimeridian (Fiji–Samoa) ~1,150 km.
        ((48.8566, 2.3522), (51.5074, -0.1278), 343_560.0, 1_000.0),
        ((40.6413, -73.7781), (33.9416, -118.4085), 3_983_000.0, 10_000.0),
        ((-18.1248, 178.4501), (-13.8333, -171.7500), 1_150_000.0, 15_000.0),
        ((90, 0), (-90, 0), Double.pi * 6_371_008.8, 1e-3),
        ((0, 179.5), (0, -179.5), 111_195.0, 10.0),
    ])
    func distancesKnownByHand(_ a: (Double, Double), _ b: (Double, Double), _ meters: Double, _ tolerance: Double) throws {
        let p = try #require(GeoPoint(latitude: a.0, longitude: a.1)), q = try #require(GeoPoint(latitude: b.0, longitude: b.1))
        #expect(abs(GreatCircle.distance(p, q) - meters) <= tolerance, "\(GreatCircle.distance(p, q))")
        #expect(GreatCircle.distance(p, q) == GreatCircle.distance(q, p))
    }

    @Test(arguments: [(91.0, 0.0), (-90.5, 0.0), (Double.nan, 0.0), (0.0, Double.infinity)])
    func aPointOffTheEarthIsRefused(_ latitude: Double, _ longitude: Double) {
        #expect(GeoPoint(latitude: latitude, longitude: longitude) == nil)
    }

    @Test(arguments: [(180.0, -180.0), (540.0, -180.0), (-181.0, 179.0), (359.0, -1.0), (-720.0, 0.0)])
    func longitudesWrapIntoOneSpelling(_ longitude: Double, _ wrapped: Double) throws {
        let point = try #require(GeoPoint(latitude: 10, longitude: longitude))
        #expect(abs(point.longitude - wrapped) < 1e-9)
    }

    /// Going `d` meters from a point at any bearing lands `d` meters away, poles and antimeridian
    /// included.
    @Test func aDestinationLiesAtItsDistance() {
        var random = SplitMix64(seed: 11)
        for point in Self.points() {
            let distance = 20_000_000 * random.nextUnit()
            let bearing = 360 * random.nextUnit()
            let landed = GreatCircle.destination(from: point, bearing: bearing, distance: distance)
            #expect(abs(GreatCircle.distance(point, landed) - distance) < 0.01, "\(point) \(bearing)° \(distance) m")
            #expect((-180..<180).contains(landed.longitude))
        }
    }

    /// Every point of a donut lies between its radii (great-circle distance), for random rings
    /// from a few meters to a few hundred kilometers around points all over the Earth.
    @Test func donutPointsLieWithinTheirRing() throws {
        var random = SplitMix64(seed: 13)
        for center in Self.points() {
            let inner = 5_000 * random.nextUnit()
            let outer = inner + 200_000 * random.nextUnit() * random.nextUnit()
            let donut = try #require(Donut(center: center, inner: inner, outer: outer))
            let point = donut.point(u: random.nextUnit(), v: random.nextUnit())
            let distance = GreatCircle.distance(center, point)
            #expect(distance >= inner - 0.01 && distance <= outer + 0.01, "\(center) [\(inner), \(outer)] → \(distance)")
        }
    }

    /// Points are spread over the ring's area, not its radius: the share nearer than the middle
    /// radius is the inner half-ring's share of the area (here about 0.36), not one half.
    @Test func donutPointsAreUniformOverTheArea() throws {
        let center = try #require(GeoPoint(latitude: 41.79, longitude: -87.6))
        let donut = try #require(Donut(center: center, inner: 500, outer: 2_000))
        var random = SplitMix64(seed: 17)
        let middle = 1_250.0
        let draws = 20_000
        let nearer = (0..<draws).filter { _ in
            GreatCircle.distance(donut.center, donut.point(u: random.nextUnit(), v: random.nextUnit())) < middle
        }.count
        // Flat-area share: (1250² − 500²) / (2000² − 500²) = 0.35; the sphere changes it by far less than 1 %.
        let expected = (middle * middle - 500 * 500) / (2_000 * 2_000 - 500 * 500)
        #expect(abs(Double(nearer) / Double(draws) - expected) < 0.015, "\(nearer) of \(draws)")
    }

    @Test(arguments: [(-1.0, 10.0), (10.0, 5.0), (0.0, Double.nan), (0.0, 3e7)])
    func aRingThatIsNoneIsRefused(_ inner: Double, _ outer: Double) throws {
        let center = try #require(GeoPoint(latitude: 0, longitude: 0))
        #expect(Donut(center: center, inner: inner, outer: outer) == nil)
    }

    @Test func aRingOfAFewMetersKeepsItsPrecision() throws {
        let center = try #require(GeoPoint(latitude: 45, longitude: 7))
        let donut = try #require(Donut(center: center, inner: 2, outer: 3))
        for u in stride(from: 0.0, through: 1.0, by: 0.125) {
            let distance = GreatCircle.distance(donut.center, donut.point(u: u, v: 0.3))
            #expect(distance >= 2 - 1e-6 && distance <= 3 + 1e-6, "u \(u) → \(distance)")
        }
        #expect(donut.distance(at: 0) == 2 && donut.distance(at: 1) == 3)
    }
}
