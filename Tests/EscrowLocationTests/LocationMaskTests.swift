@testable import EscrowLocation
import EscrowTestSupport
import Foundation
import Testing

/// The location mask's promises, over 10,000 random points worldwide (poles, the antimeridian,
/// oceans and cities alike): every masked point lies between the minimum and the accuracy from the
/// truth; the same place, flow and cell give the same answer however often asked; asking a
/// thousand times from one place brings the mean no closer than the minimum.
@Suite struct LocationMaskTests {
    static let secret = (0..<32).map { UInt8($0 * 7 + 1) }

    static func points(_ count: Int = 10_000, seed: UInt64 = 21) -> [GeoPoint] {
        var random = SplitMix64(seed: seed)
        var points = (0..<count).compactMap { _ in
            GeoPoint(latitude: asin(2 * random.nextUnit() - 1) * 180 / .pi, longitude: 360 * random.nextUnit() - 180)
        }
        // The poles, the antimeridian, and megacities (Tokyo, Delhi, Shanghai, São Paulo, Lagos).
        points += [(90, 0), (-90, 0), (89.9999, 179.9999), (-89.99, -179.99), (0, 180), (0, -179.9999), (65.5, 179.999),
                   (-16.5, -179.999), (35.6895, 139.6917), (28.6139, 77.2090), (31.2304, 121.4737), (-23.5505, -46.6333),
                   (6.5244, 3.3792)].compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) }
        return points
    }

    @Test(arguments: [(50.0, 500.0), (200.0, 2_000.0), (1_000.0, 20_000.0), (0.0, 100.0), (5_000.0, 300_000.0)])
    func everyMaskedPointLiesBetweenTheMinimumAndTheAccuracy(_ minimum: Double, _ accuracy: Double) throws {
        let mask = try LocationMask(secret: Self.secret, flow: "weather", accuracy: accuracy, minimum: minimum)
        for truth in Self.points() {
            let distance = GreatCircle.distance(truth, mask.mask(truth))
            #expect(distance >= minimum - 1e-6 && distance <= accuracy + 1e-6, "\(truth): \(distance) m, not in [\(minimum), \(accuracy)]")
        }
    }

    @Test func theSamePlaceFlowAndSecretGiveTheSameAnswerAndAnotherFlowAnother() throws {
        let mask = try LocationMask(secret: Self.secret, flow: "weather", accuracy: 2_000, minimum: 200)
        let again = try LocationMask(secret: Self.secret, flow: "weather", accuracy: 2_000, minimum: 200)
        let otherFlow = try LocationMask(secret: Self.secret, flow: "articles", accuracy: 2_000, minimum: 200)
        let otherSecret = try LocationMask(secret: Self.secret.reversed(), flow: "weather", accuracy: 2_000, minimum: 200)
        var differentFlow = 0, differentSecret = 0
        for truth in Self.points(1_000) {
            #expect(mask.mask(truth) == again.mask(truth))
            if otherFlow.mask(truth) != mask.mask(truth) { differentFlow += 1 }
            if otherSecret.mask(truth) != mask.mask(truth) { differentSecret += 1 }
        }
        #expect(differentFlow == 1_000 + 13 && differentSecret == 1_000 + 13)
    }

    /// Staying in a place: every one of 1,000 requests gets the same answer, so their mean is that
    /// answer, at least the minimum from the truth: no number of requests averages the mask away.
    @Test func askingAThousandTimesFromOnePlaceBringsTheMeanNoCloser() throws {
        let mask = try LocationMask(secret: Self.secret, flow: "weather", accuracy: 2_000, minimum: 300)
        for home in Self.points(200) {
            var latitudes = 0.0, x = 0.0, y = 0.0
            var answers = Set<GeoPoint>()
            for _ in 0..<1_000 {
                let answer = mask.mask(home)
                answers.insert(answer)
                latitudes += answer.latitude
                x += cos(answer.longitude * .pi / 180)
                y += sin(answer.longitude * .pi / 180)
            }
            #expect(answers.count == 1)
            let mean = try #require(GeoPoint(latitude: latitudes / 1_000, longitude: atan2(y, x) * 180 / .pi))
            #expect(GreatCircle.distance(home, mean) >= 300 - 1e-3, "\(home): the mean of 1,000 answers came within \(GreatCircle.distance(home, mean)) m")
        }
    }

    @Test func movingFarChangesTheAnswerByCellNeverByRequest() throws {
        let mask = try LocationMask(secret: Self.secret, flow: "weather", accuracy: 1_000, minimum: 100)
        let start = try #require(GeoPoint(latitude: 52.52, longitude: 13.405))
        var answers: [GeoPoint] = []
        for step in 0..<100 {
            let here = GreatCircle.destination(from: start, bearing: 90, distance: Double(step) * 50)
            answers.append(mask.mask(here))
            #expect(mask.mask(here) == answers.last, "the same place, asked again")
        }
        // 5 km walked in cells of about 112 m: the answer changed many times, but far fewer than
        // the 100 requests.
        let changes = zip(answers, answers.dropFirst()).filter { $0 != $1 }.count
        #expect(changes > 20 && changes < 100, "\(changes) changes")
    }

    @Test(arguments: [(-1.0, 100.0), (100.0, 100.0), (200.0, 100.0), (0.0, Double.infinity), (0.0, 2e7)])
    func radiiThatAreNoRingAreRefused(_ minimum: Double, _ accuracy: Double) {
        #expect(throws: LocationMaskError.invalidRadii(minimum: minimum, accuracy: accuracy)) {
            try LocationMask(secret: Self.secret, flow: "f", accuracy: accuracy, minimum: minimum)
        }
    }

    @Test func aShortSecretIsRefused() {
        #expect(throws: LocationMaskError.shortSecret(16)) {
            try LocationMask(secret: Array(repeating: 1, count: 16), flow: "f", accuracy: 100, minimum: 0)
        }
    }

    /// The masked points are the same in every build, not only within one: were the keyed hash
    /// every secret-derived choice comes from to change (the grid's offset, a cell's point, a
    /// dummy's direction), every individual's masked location would move once, and an app asking
    /// before and after an upgrade would get two draws to average. Pinned here, in integers only
    /// (the same on every machine): a 64-bit FNV-1a of codes under keys shorter than, as long as
    /// and longer than a SHA-256 block, and of cells' units, negative numbers included. The value
    /// is the one Python's `hmac.new(key, message, hashlib.sha256)` gives: standard HMAC-SHA256.
    @Test func theKeyedHashIsTheSameInEveryBuild() throws {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ bytes: [UInt8]) {
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        func add(_ units: (Double, Double)) {
            add(withUnsafeBytes(of: units.0.bitPattern.bigEndian, Array.init) + withUnsafeBytes(of: units.1.bitPattern.bigEndian, Array.init))
        }
        add(LocationMask.code(Self.secret, ["escrow.location-mask.v1", "weather"]))
        add(LocationMask.code((0..<64).map(UInt8.init), ["a key one block long"]))
        add(LocationMask.code(Array(repeating: 0xab, count: 100), ["a key longer than a block", ""]))
        let mask = try LocationMask(secret: Self.secret, flow: "weather", accuracy: 1_000, minimum: 100)
        for band in [-3, 0, 1, 9, 10, 12_345, Int.min, Int.max] {
            for index in [-1, 0, 7, 99_999] {
                add(mask.cellUnits(band: band, index: index))
            }
        }
        #expect(hash == 0x3169_2e49_d459_da8e, "FNV-1a of the codes: \(String(hash, radix: 16))")
    }
}
