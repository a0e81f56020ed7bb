import EscrowLocation
import Foundation

// Issue 15: the bundled GeoNames place table — decoding it, and its lookups through the grid
// index (the nearest city, the population estimate) on random points and on city points.
extension Suite {
    /// Points per lookup figure and repetition.
    static let placeQueryCount = 20_000
    /// The radius of the population-estimate figures, in meters.
    static let placePeopleRadius = 10_000.0

    func locationPlaces() async throws -> [FigureResult] {
        let clock = ContinuousClock()
        // The first call decodes the embedded table (base64, checks, CRC-32, centroids, the two
        // grids) and caches it: once per process, so one sample.
        var bundled: PlaceTable?
        let firstCall = try clock.measure { bundled = try PlaceTable.bundled() }
        guard let table = bundled else { throw BenchError("PlaceTable.bundled() returned nothing") }
        // Decoding again, timed per repetition: the committed file's bytes (what the base64
        // literal holds), without the base64 step.
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appending(path: "../../../Sources/EscrowLocation/Places/places.bin").standardizedFileURL
        let bytes = [UInt8](try Data(contentsOf: file))

        var random = SeededGenerator(seed: 15)
        let randomPoints = (0..<Self.placeQueryCount).compactMap { _ in
            GeoPoint(latitude: asin(Double.random(in: -1..<1, using: &random)) * 180 / .pi,
                     longitude: Double.random(in: -180..<180, using: &random))
        }
        let cities = (0..<table.count).map { table[$0] }.filter { $0.population >= PlaceTable.cityPopulation }
        let cityPoints = (0..<Self.placeQueryCount).map { _ in random.pick(cities).point }

        struct Sample { var decode = 0.0, nearestRandom = 0.0, nearestCity = 0.0, peopleRandom = 0.0, peopleCity = 0.0 }
        let radius = Self.placePeopleRadius
        let samples = try await sampler.collect(
            setUp: { () },
            body: { _ -> Sample in
                var decoded: PlaceTable?
                let decode = try clock.measure { decoded = try PlaceTable(bytes: bytes) }
                guard decoded?.count == table.count else { throw BenchError("the committed places.bin is not the bundled table") }
                var found = 0
                func rate(_ points: [GeoPoint], _ lookup: (GeoPoint) -> Bool) -> Double {
                    let elapsed = clock.measure { for point in points where lookup(point) { found += 1 } }
                    return Double(points.count) / elapsed.seconds
                }
                var sample = Sample(decode: decode.seconds)
                sample.nearestRandom = rate(randomPoints) { table.nearestCity(to: $0) != nil }
                sample.nearestCity = rate(cityPoints) { table.nearestCity(to: $0) != nil }
                sample.peopleRandom = rate(randomPoints) { table.people(within: radius, of: $0) > 0 }
                sample.peopleCity = rate(cityPoints) { table.people(within: radius, of: $0) > 0 }
                guard found >= 3 * Self.placeQueryCount else { throw BenchError("\(found) lookups found something") }
                return sample
            },
            tearDown: { _ in }
        )
        let name = "places (\(table.count), \(cities.count) cities)"
        let within = "people(within: \(Int(radius / 1_000)) km)"
        return [
            FigureResult(name: "\(name): first bundled() (base64, decode, index)", unit: .milliseconds, seconds: [firstCall.seconds]),
            FigureResult(name: "\(name): PlaceTable(bytes:) (decode, index)", unit: .milliseconds, seconds: samples.map(\.decode)),
            FigureResult(name: "\(name): nearestCity, random points", unit: .lookupsPerSecond, values: samples.map(\.nearestRandom),
                         higherIsBetter: true),
            FigureResult(name: "\(name): nearestCity, city points", unit: .lookupsPerSecond, values: samples.map(\.nearestCity),
                         higherIsBetter: true),
            FigureResult(name: "\(name): \(within), random points", unit: .lookupsPerSecond, values: samples.map(\.peopleRandom),
                         higherIsBetter: true),
            FigureResult(name: "\(name): \(within), city points", unit: .lookupsPerSecond, values: samples.map(\.peopleCity),
                         higherIsBetter: true),
        ]
    }
}
