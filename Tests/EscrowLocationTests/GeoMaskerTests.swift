import EscrowLocation
import EscrowTestSupport
import Foundation
import Testing

/// The adaptive geomask a flow's runs get (Algorithm 1 made deterministic), over the bundled
/// place table: the bounds hold everywhere, the radius adapts to how many people live around, and
/// asking again never gives a new answer.
@Suite struct GeoMaskerTests {
    static let secret = Array((0..<32).map { UInt8($0 &* 7 &+ 3) })

    static func masker(_ accuracy: Double, flow: String = "weather", k: Int = 10) throws -> GeoMasker {
        try GeoMasker(secret: secret, flow: flow, level: .radius(accuracy), minimumShare: 0.1, k: k, places: try PlaceTable.bundled())
    }

    /// 10,000 points worldwide (poles, antimeridian, oceans, megacities) at three accuracies:
    /// every masked point lies at least r and at most A from the truth, and its radius is in
    /// [2r, A] as the audit records it.
    @Test(arguments: [1_000.0, 5_000.0, 50_000.0])
    func everyMaskedPointLiesWithinItsBounds(_ accuracy: Double) throws {
        let masker = try Self.masker(accuracy)
        let megacities = [(35.6895, 139.6917), (28.6139, 77.2090), (-23.5505, -46.6333), (19.4326, -99.1332), (31.2304, 121.4737),
                          (40.7128, -74.0060), (51.5074, -0.1278), (6.5244, 3.3792)].compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) }
        var radii: Set<Double> = []
        for truth in GeometryTests.points() + megacities {
            let masked = masker.mask(truth)
            let distance = GreatCircle.distance(truth, masked.point)
            #expect(distance >= 0.1 * accuracy - 1e-3 && distance <= accuracy + 1e-3, "\(truth) → \(masked.point): \(distance) m")
            let radius = try #require(masked.radius)
            #expect(radius >= 0.2 * accuracy - 1e-6 && radius <= accuracy + 1e-6)
            radii.insert(radius)
        }
        // Dense places got smaller radii than the sea: the radius adapts.
        #expect(radii.count > 1, "one radius for the whole world: \(radii)")
    }

    /// In a city centre k people live close by: the radius stays well under the approval, and the
    /// area is not sparse; in the middle of the Pacific nobody does: the full radius, sparse, and
    /// k−1 dummy places for the requests, each at least 2A from the truth and from each other.
    @Test func theRadiusAdaptsToThePeopleAround() throws {
        let masker = try Self.masker(1_000)
        let berlin = try #require(GeoPoint(latitude: 52.5200, longitude: 13.4050))
        let dense = masker.mask(berlin)
        #expect(try #require(dense.radius) < 1_000)
        #expect(dense.people >= 10)
        #expect(!masker.isSparse(berlin))
        #expect(masker.dummyOrigins(for: berlin).count == 9)

        let pacific = try #require(GeoPoint(latitude: -30, longitude: -140))
        let sparse = masker.mask(pacific)
        #expect(sparse.radius == 1_000)
        #expect(sparse.people < 10)
        #expect(masker.isSparse(pacific))
        let dummies = masker.dummyOrigins(for: pacific)
        #expect(dummies.count == 9)
        // Each dummy lies about as far from any populated place as the truth does: the real
        // request is not the one no town is near.
        let places = try PlaceTable.bundled()
        func townDistance(_ point: GeoPoint) throws -> Double {
            GreatCircle.distance(point, try #require(places.nearestPlaces(to: point, count: 1, apartFrom: 0).first).point)
        }
        let truthDistance = try townDistance(pacific)
        for dummy in dummies {
            let distance = try townDistance(dummy)
            #expect(distance >= 0.8 * truthDistance && distance <= truthDistance + 1, "\(dummy): \(distance) m from a town, the truth \(truthDistance) m")
        }
        #expect(masker.dummyOrigins(for: pacific) == dummies, "the dummies are the same every run")
        for (index, dummy) in dummies.enumerated() {
            #expect(GreatCircle.distance(dummy, pacific) >= 2_000)
            for other in dummies[(index + 1)...] { #expect(GreatCircle.distance(dummy, other) >= 2_000) }
        }
    }

    /// One place asked 1,000 times gives one answer (so their mean is that answer, never nearer
    /// than r); another flow gets another; with k = 1 nothing is ever sparse.
    @Test func askingAgainNeverGivesANewAnswer() throws {
        let masker = try Self.masker(2_000)
        let other = try Self.masker(2_000, flow: "another flow")
        let once = try Self.masker(2_000, k: 1)
        var random = SplitMix64(seed: 5)
        for truth in GeometryTests.points(200, seed: 9) {
            let first = masker.mask(truth).point
            for _ in 0..<5 { #expect(masker.mask(truth).point == first) }
            #expect(other.mask(truth).point != first)
            #expect(!once.isSparse(truth))
            // A fresh masker over the same secret and flow (another run, another process) agrees.
            if random.nextUnit() < 0.1 { #expect(try Self.masker(2_000).mask(truth).point == first) }
        }
        let home = try #require(GeoPoint(latitude: 48.8566, longitude: 2.3522))
        let answers = Set((0..<1_000).map { _ in masker.mask(home).point })
        #expect(answers.count == 1)
        #expect(GreatCircle.distance(home, try #require(answers.first)) >= 200 - 1e-3)
    }

    /// City, region and country give the aggregate's centre and population, the same for two
    /// points of one neighbourhood.
    @Test func aggregatesGiveTheCentreAndItsPopulation() throws {
        let places = try PlaceTable.bundled()
        let near = try #require(GeoPoint(latitude: 48.8530, longitude: 2.3499))
        let nearby = GreatCircle.destination(from: near, bearing: 45, distance: 300)
        for level in [MaskLevel.city, .region, .country] {
            let masker = try GeoMasker(secret: Self.secret, flow: "f", level: level, minimumShare: 0.1, k: 10, places: places)
            let masked = masker.mask(near)
            #expect(masked.radius == nil)
            #expect(masked.people >= 15_000)
            #expect(masker.mask(nearby) == masked)
            #expect(!masker.isSparse(near))
            #expect(masker.dummyOrigins(for: near).isEmpty)
        }
        let country = try GeoMasker(secret: Self.secret, flow: "f", level: .country, minimumShare: 0.1, k: 10, places: places).mask(near)
        #expect(country.people > 50_000_000)
    }
}
