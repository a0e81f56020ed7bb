import EscrowCore
@testable import EscrowFunctions
import EscrowTestSupport
import Testing

@Suite struct PhotosLabelsTests {
    /// Runs photos.labels over pictures, with ids 1, 2, … when `ids` is set.
    static func label(_ pictures: [[UInt8]?], ids: Bool = true) async throws -> [PhotosLabels.Picture] {
        var asset = ColumnBuilder(name: "asset", type: .bytes)
        var id = ColumnBuilder(name: "id", type: .int64)
        for (index, picture) in pictures.enumerated() {
            if let picture { asset.append(bytes: picture) } else { asset.appendNull() }
            id.append(Int64(index + 1))
        }
        let frame = try Frame(columns: ids ? [id.build(), asset.build()] : [asset.build()])
        return try await PhotosLabels().compute(frame, context: ComputeContext()).pictures
    }

    static func hammingDistance(_ a: String?, _ b: String?) throws -> Int {
        let first = try #require(a.flatMap { UInt64($0, radix: 16) })
        let second = try #require(b.flatMap { UInt64($0, radix: 16) })
        return (first ^ second).nonzeroBitCount
    }

    @Test(arguments: [
        (MediaFixtures.Scene.meadow, ["landscape", "sky", "vegetation"], ["dark", "night", "document", "warm light"]),
        (.sunset, ["landscape", "warm light"], ["sky", "vegetation", "document", "monochrome"]),
        (.night, ["landscape", "dark", "night"], ["bright", "sky", "vegetation", "document"]),
        (.document, ["landscape", "bright", "monochrome", "document"], ["sky", "vegetation", "night", "colorful"]),
    ])
    func scenesGetTheirLabels(scene: MediaFixtures.Scene, present: [String], absent: [String]) async throws {
        let picture = try #require(try await Self.label([MediaFixtures.scene(scene)]).first)
        #expect(picture.problem == nil)
        #expect(picture.width == 320 && picture.height == 240)
        for label in present { #expect(picture.labels.contains(label), "\(scene) lacks \(label): \(picture.labels)") }
        for label in absent { #expect(!picture.labels.contains(label), "\(scene) has \(label): \(picture.labels)") }
        #expect(picture.perceptualHash?.count == 16)
    }

    @Test func measurementsDescribeThePixels() async throws {
        let pictures = try await Self.label([MediaFixtures.scene(.night), MediaFixtures.scene(.document),
                                             MediaFixtures.scene(.sunset)])
        let night = pictures[0], document = pictures[1], sunset = pictures[2]
        #expect(try #require(night.brightness) < 0.2)
        #expect(try #require(document.brightness) > 0.8)
        #expect(try #require(document.colorfulness) < 15)
        #expect(try #require(sunset.colorfulness) > 60)
        let documentContrast = try #require(document.contrast)
        #expect(documentContrast > (try #require(night.contrast)))
        #expect(night.dominantColor == "blue" || night.dominantColor == "black")
        #expect(document.dominantColor == "white")
        #expect(sunset.dominantColor == "orange" || sunset.dominantColor == "red")
    }

    @Test func alikePicturesHaveNearHashesAndDifferentOnesFarHashes() async throws {
        let pictures = try await Self.label([
            MediaFixtures.scene(.meadow, seed: 1), MediaFixtures.scene(.meadow, seed: 2),
            MediaFixtures.scene(.meadow, width: 640, height: 480, seed: 3), MediaFixtures.scene(.document),
            MediaFixtures.scene(.sunset),
        ])
        #expect(try Self.hammingDistance(pictures[0].perceptualHash, pictures[1].perceptualHash) <= 6)
        #expect(try Self.hammingDistance(pictures[0].perceptualHash, pictures[2].perceptualHash) <= 6)
        #expect(try Self.hammingDistance(pictures[0].perceptualHash, pictures[3].perceptualHash) >= 12)
        #expect(try Self.hammingDistance(pictures[3].perceptualHash, pictures[4].perceptualHash) >= 12)
    }

    @Test func largeJPEGsAreDecodedScaledDownButReportTheirFullSize() async throws {
        let picture = try #require(try await Self.label([MediaFixtures.scene(.meadow, width: 1200, height: 1800)]).first)
        #expect(picture.width == 1200 && picture.height == 1800)
        #expect(picture.labels.first == "portrait")
        #expect(picture.labels.contains("vegetation"))
    }

    @Test func pngIsDecodedToo() async throws {
        let picture = try #require(try await Self.label([MediaFixtures.png(width: 40, height: 40)]).first)
        #expect(picture.problem == nil)
        #expect(picture.width == 40 && picture.height == 40)
        #expect(picture.dominantColor == "grey")
        #expect(picture.labels == ["square", "flat", "monochrome"])
        #expect(abs(try #require(picture.brightness) - 128.0 / 255) < 0.01)
    }

    @Test func undecodablePicturesGetAProblemAndTheRunGoesOn() async throws {
        let good = MediaFixtures.scene(.meadow)
        let pictures = try await Self.label([
            MediaFixtures.heic(width: 64, height: 48), [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0x13, 0x37],
            MediaFixtures.mp3(durationSeconds: 1), nil, Array(repeating: 7, count: 100), good,
        ])
        #expect(pictures.map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(pictures[0].problem == "HEIC pictures are not decoded by this function (JPEG and PNG are)")
        #expect(pictures[1].problem?.hasPrefix("damaged JPEG: ") == true)
        #expect(pictures[2].problem?.hasPrefix("MP3 pictures are not decoded") == true)
        #expect(pictures[3].problem == "no picture (null)")
        #expect(pictures[4].problem?.hasPrefix("this file format pictures") == true)
        for failed in pictures.prefix(5) {
            #expect(failed.labels.isEmpty && failed.width == nil && failed.perceptualHash == nil)
        }
        #expect(pictures[5].problem == nil && pictures[5].labels.contains("sky"))
    }

    @Test func aTruncatedJPEGStillGetsLabels() async throws {
        let whole = MediaFixtures.scene(.meadow)
        let picture = try #require(try await Self.label([Array(whole.prefix(whole.count * 3 / 4))]).first)
        #expect(picture.problem == nil)
        #expect(picture.width == 320)
    }

    @Test func manyPicturesKeepTheirOrderAcrossWorkers() async throws {
        let scenes = MediaFixtures.Scene.allCases
        let inputs = (0..<100).map { MediaFixtures.scene(scenes[$0 % 4], width: 64, height: 48, seed: UInt64($0)) }
        let pictures = try await Self.label(inputs)
        #expect(pictures.map(\.id) == (1...100).map { Int64($0) })
        for (index, picture) in pictures.enumerated() where scenes[index % 4] == .document {
            #expect(picture.labels.contains("document"), "picture \(index + 1): \(picture.labels)")
        }
    }

    @Test func theOutputRoundTripsThroughItsFrameWithoutIds() async throws {
        let pictures = try await Self.label([MediaFixtures.scene(.sunset), nil], ids: false)
        #expect(pictures.map(\.id) == [nil, nil])
        let output = PhotosLabels.Output(pictures: pictures)
        let frame = try output.frame()
        #expect(frame.columnNames == ["id", "width", "height", "brightness", "contrast", "colorfulness",
                                      "dominantColor", "labels", "perceptualHash", "problem"])
        #expect(try frame.column("labels").string(at: 0)?.hasPrefix("[\"landscape\"") == true)
        #expect(try PhotosLabels.Output(frame: frame) == output)
    }

    @Test func inputWithoutPicturesIsRefused() async throws {
        let frame = try Frame(columns: [Column(name: "asset", values: .string(["abc"]))])
        #expect(throws: FrameError.self) { try PhotosLabels.inputs.check(frame) }
    }
}
