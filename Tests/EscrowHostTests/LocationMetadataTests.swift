@testable import EscrowFunctions
@testable import EscrowHost
import EscrowStore
import EscrowTestSupport
import Testing

/// `LocationMetadata.strip`: real JPEGs and PNGs with GPS lose it (checked with the escrow's own
/// libexif reader) and keep their pixels (checked with libjpeg-turbo and libpng); files without
/// metadata come back byte-identical; hostile and truncated files throw the fault and its offset,
/// never a half-stripped file; other formats are refused by name.
@Suite struct LocationMetadataTests {
    static let eiffelTower = (latitude: 48.858_37, longitude: 2.294_48)

    // MARK: JPEG

    @Test func gpsExifLeavesTheJPEG() throws {
        let original = MediaFixtures.jpeg(width: 24, height: 16, exifDate: "2024:05:01 12:00:00", gps: Self.eiffelTower)
        let before = try #require(try MediaProbe.probe(original, file: "gps.jpg"))
        #expect(before.latitude != nil && before.longitude != nil, "the fixture must carry GPS for this test to mean anything")

        let stripped = try LocationMetadata.strip(original)

        #expect(!Self.markers(of: stripped).contains(0xE1), "no APP1 segment may remain")
        #expect(!Self.contains(stripped, Array("Exif".utf8)))
        for rationals in Self.gpsRationals(of: original) {
            #expect(!Self.contains(stripped, rationals), "the GPS degree/minute/second bytes must be gone")
        }
        let after = try #require(try MediaProbe.probe(stripped, file: "stripped.jpg"))
        #expect(after.latitude == nil && after.longitude == nil)
        #expect(after.creationDate == nil)
        #expect(after.pixelWidth == 24 && after.pixelHeight == 16)
        #expect(try Self.pixels(stripped) == Self.pixels(original))
    }

    @Test func aCameraJPEGWithGPSComesBackAsItWasEncoded() throws {
        let encoded = MediaFixtures.scene(.meadow, width: 160, height: 120, seed: 7)
        let withGPS = Self.insertingAfterStartOfImage(Self.gpsSegment(), into: encoded)
        #expect(try MediaProbe.probe(withGPS, file: "camera.jpg")?.latitude != nil)

        let stripped = try LocationMetadata.strip(withGPS)

        #expect(stripped == encoded, "removing the inserted EXIF must give back libjpeg-turbo's own file")
        #expect(try MediaProbe.probe(stripped, file: "stripped.jpg")?.latitude == nil)
        #expect(try Self.pixels(stripped) == Self.pixels(withGPS))
    }

    @Test(arguments: [
        MediaFixtures.jpeg(),
        MediaFixtures.jpeg(width: 33, height: 17),
        MediaFixtures.scene(.document, width: 41, height: 23),
        MediaFixtures.scene(.night, width: 320, height: 240, seed: 3),
    ])
    func aJPEGWithoutMetadataIsUnchanged(_ jpeg: [UInt8]) throws {
        #expect(try LocationMetadata.strip(jpeg) == jpeg)
    }

    @Test func everySegmentThatCanHoldALocationIsDropped() throws {
        let encoded = MediaFixtures.scene(.sunset, width: 96, height: 64, seed: 1)
        let icc = Self.segment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 1] + [UInt8](repeating: 0x42, count: 40))
        let adobe = Self.segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1])
        let dropped: [[UInt8]] = [
            Self.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8)
                + Array("<x:xmpmeta><exif:GPSLatitude>48,51.5N</exif:GPSLatitude></x:xmpmeta>".utf8)),
            Self.segment(0xE1, Array("http://ns.adobe.com/xmp/extension/\0".utf8) + [UInt8](repeating: 0x41, count: 40)),
            Self.segment(0xED, Array("Photoshop 3.0\0".utf8) + Array("8BIM\u{04}\u{04}\0\0\0\0\0\u{0C}Paris, Eiffel".utf8)),
            Self.segment(0xFE, Array("shot at the Eiffel Tower".utf8)),
            Self.segment(0xE6, Array("GoPro\0".utf8) + Array("GPS5 48.858 2.294".utf8)),
            Self.segment(0xE2, Array("MPF\0".utf8) + [UInt8](repeating: 0, count: 16)),
            Self.segment(0xEB, Array("JP".utf8) + Array("c2pa location assertion".utf8)),
            Self.segment(0xE0, Array("AVI1".utf8) + [0, 0, 0, 0]),
            Self.segment(0xE0, Array("JFXX\0".utf8) + [0x10] + MediaFixtures.jpeg(gps: Self.eiffelTower)),
            Self.segment(0xEE, Array("NotAdobe".utf8)),
        ]
        var file = Array(encoded.prefix(2))
        for (index, segment) in dropped.enumerated() {
            file += segment
            if index == 2 { file += icc }
            if index == 5 { file += adobe }
        }
        file += encoded.dropFirst(2)

        let stripped = try LocationMetadata.strip(file)

        #expect(stripped == Array(encoded.prefix(2)) + icc + adobe + encoded.dropFirst(2))
        #expect(try Self.pixels(stripped) == Self.pixels(encoded))
    }

    @Test func segmentsAfterTheScanAndFilesAfterTheEndAreDropped() throws {
        let encoded = MediaFixtures.scene(.meadow, width: 64, height: 48, seed: 2)
        #expect(encoded.suffix(2) == [0xFF, 0xD9])
        // Between the last scan and EOI, then a second picture with GPS appended after EOI, as a
        // Multi-Picture Format file or a motion photo has.
        let file = Array(encoded.dropLast(2)) + Self.segment(0xFE, Array("Paris".utf8)) + Self.gpsSegment() + [0xFF, 0xD9]
            + MediaFixtures.jpeg(gps: Self.eiffelTower) + Array("trailer".utf8)

        let stripped = try LocationMetadata.strip(file)

        #expect(stripped == encoded)
    }

    @Test func theOrientationIsKeptInAMinimalExifSegment() throws {
        let rotated = MediaFixtures.jpeg(width: 16, height: 8, exifDate: "2024:05:01 12:00:00", gps: Self.eiffelTower,
                                         orientation: 6)
        let stripped = try LocationMetadata.strip(rotated)

        #expect(Self.segments(of: stripped).filter { $0.marker == 0xE1 }.map(\.bytes) == [Self.orientationSegment(6)])
        let info = try #require(try MediaProbe.probe(stripped, file: "rotated.jpg"))
        #expect(info.latitude == nil && info.creationDate == nil)
        #expect(info.pixelWidth == 8 && info.pixelHeight == 16, "orientation 6 still turns the picture a quarter")
        #expect(try Self.pixels(stripped) == Self.pixels(rotated))

        let upright = try LocationMetadata.strip(MediaFixtures.jpeg(width: 16, height: 8, gps: Self.eiffelTower, orientation: 1))
        #expect(!Self.markers(of: upright).contains(0xE1), "orientation 1 is the default and needs no EXIF")
    }

    @Test func aLittleEndianOrientationIsWrittenAgainBigEndian() throws {
        let tiff: [UInt8] = Array("II".utf8) + [0x2A, 0, 8, 0, 0, 0] + [2, 0]
            + [0x0F, 0x01, 2, 0, 4, 0, 0, 0] + Array("Acme".utf8)
            + [0x12, 0x01, 3, 0, 1, 0, 0, 0, 8, 0, 0, 0] + [0, 0, 0, 0]
        let file = Self.insertingAfterStartOfImage(Self.segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff),
                                                   into: MediaFixtures.jpeg())
        let stripped = try LocationMetadata.strip(file)
        #expect(stripped == Self.insertingAfterStartOfImage(Self.orientationSegment(8), into: MediaFixtures.jpeg()))
    }

    @Test func scanDataIsCopiedWithItsStuffingAndRestarts() throws {
        let grey = MediaFixtures.jpeg()
        let scanStart = try #require(Self.scanDataStart(of: grey))
        let crafted = Array(grey[..<scanStart]) + [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD3, 0x56, 0xFF, 0xFF, 0xD9]
        #expect(try LocationMetadata.strip(crafted) == crafted)
    }

    // MARK: PNG

    @Test func aPNGLosesExactlyItsMetadataChunks() throws {
        let base = Self.chunks(of: MediaFixtures.png(width: 12, height: 9))
        let header = try #require(base.first { $0.type == "IHDR" })
        let data = try #require(base.first { $0.type == "IDAT" })
        let end = try #require(base.first { $0.type == "IEND" })
        let tiff = Array(Self.gpsSegment().dropFirst(10))
        let gamma = Self.chunk("gAMA", [0, 0, 0xB1, 0x8F])
        let physical = Self.chunk("pHYs", [0, 0, 0x0B, 0x13, 0, 0, 0x0B, 0x13, 1])
        let xmp = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0]
            + Array("<x:xmpmeta><exif:GPSLatitude>48,51.5N</exif:GPSLatitude></x:xmpmeta>".utf8)
        let file = Self.signature + header.bytes + gamma
            + Self.chunk("eXIf", tiff)
            + Self.chunk("tEXt", Array("Location".utf8) + [0] + Array("Paris".utf8))
            + Self.chunk("zTXt", Array("Comment".utf8) + [0, 0, 0x78, 0x01, 0x01, 0, 0, 0xFF, 0xFF, 0, 0, 0, 1])
            + Self.chunk("iTXt", xmp)
            + Self.chunk("exIf", tiff)
            + Self.chunk("caBX", Array("c2pa".utf8))
            + physical + data.bytes + end.bytes
            + Array("trailing data".utf8)
        #expect(try MediaProbe.probe(file, file: "gps.png")?.latitude != nil)

        let stripped = try LocationMetadata.strip(file)

        #expect(stripped == Self.signature + header.bytes + gamma + physical + data.bytes + end.bytes)
        #expect(Self.chunks(of: stripped).allSatisfy { $0.crcIsValid })
        #expect(Self.chunks(of: stripped).map(\.type) == ["IHDR", "gAMA", "pHYs", "IDAT", "IEND"])
        for rationals in Self.gpsRationals(ofTIFF: tiff) {
            #expect(!Self.contains(stripped, rationals))
        }
        #expect(try MediaProbe.probe(stripped, file: "stripped.png")?.latitude == nil)
        #expect(try Self.pixels(stripped) == Self.pixels(file))
    }

    @Test func aPNGWithoutMetadataIsUnchangedAndATextChunkGoes() throws {
        let plain = MediaFixtures.png(width: 30, height: 20)
        #expect(try LocationMetadata.strip(plain) == plain)
        let commented = MediaFixtures.png(width: 30, height: 20, variant: 4)
        #expect(try LocationMetadata.strip(commented) == plain)
    }

    // MARK: Hostile input

    /// A hostile input and what `strip` must do with it.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        /// The error, or `nil` when the output must be `output`.
        let error: LocationMetadataError?
        let output: [UInt8]?

        static func fails(_ name: String, _ bytes: [UInt8], _ error: LocationMetadataError) -> Hostile {
            Hostile(name: name, bytes: bytes, error: error, output: nil)
        }

        static func gives(_ name: String, _ bytes: [UInt8], _ output: [UInt8]) -> Hostile {
            Hostile(name: name, bytes: bytes, error: nil, output: output)
        }

        var testDescription: String { name }
    }

    static let hostileJPEGs: [Hostile] = {
        let soi: [UInt8] = [0xFF, 0xD8]
        let grey = MediaFixtures.jpeg()
        let scanStart = scanDataStart(of: grey) ?? 0
        let sos = scanStart - 10
        let exifOnly = segment(0xE1, Array("Exif".utf8) + [0, 0])
        return [
            .fails("empty", [], .unsupportedFormat(LocationMetadataError.unknownFormat)),
            .fails("one byte", [0xFF], .unsupportedFormat(LocationMetadataError.unknownFormat)),
            .fails("SOI only", soi, .malformedJPEG(offset: 2, .noStartOfScan)),
            .fails("SOI and 0xFF", soi + [0xFF], .malformedJPEG(offset: 2, .truncatedMarker)),
            .fails("fill run to the end", soi + [UInt8](repeating: 0xFF, count: 1000), .malformedJPEG(offset: 2, .truncatedMarker)),
            .fails("marker without its length", soi + [0xFF, 0xE1], .malformedJPEG(offset: 2, .segmentPastEnd)),
            .fails("half a length", soi + [0xFF, 0xE1, 0x00], .malformedJPEG(offset: 2, .segmentPastEnd)),
            .fails("length past the end", soi + [0xFF, 0xE1, 0x00, 0x10, 1, 2, 3], .malformedJPEG(offset: 2, .segmentPastEnd)),
            .fails("length 0xFFFF", soi + [0xFF, 0xE1, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 64),
                   .malformedJPEG(offset: 2, .segmentPastEnd)),
            .fails("length past the end after fill", soi + [0xFF, 0xFF, 0xFF, 0xDB, 0x00, 0x43, 1],
                   .malformedJPEG(offset: 4, .segmentPastEnd)),
            .fails("length 0", soi + [0xFF, 0xE1, 0x00, 0x00], .malformedJPEG(offset: 2, .invalidLength(0))),
            .fails("length 1", soi + [0xFF, 0xDB, 0x00, 0x01, 0x00], .malformedJPEG(offset: 2, .invalidLength(1))),
            .fails("APP1 at the very end", soi + exifOnly, .malformedJPEG(offset: 12, .noStartOfScan)),
            .fails("EOI before any scan", soi + [0xFF, 0xD9], .malformedJPEG(offset: 2, .noStartOfScan)),
            .fails("a byte where a marker must be", soi + [0x00, 0xFF, 0xD9], .malformedJPEG(offset: 2, .expectedMarker(found: 0))),
            .fails("0xFF00 as a marker", soi + [0xFF, 0x00], .malformedJPEG(offset: 2, .invalidMarker(0x00))),
            .fails("a second SOI", soi + soi + Array(grey.dropFirst(2)), .malformedJPEG(offset: 2, .invalidMarker(0xD8))),
            .fails("a reserved marker", soi + [0xFF, 0x02, 0x00, 0x02], .malformedJPEG(offset: 2, .invalidMarker(0x02))),
            .fails("truncated SOS", Array(grey[..<(sos + 5)]), .malformedJPEG(offset: sos, .segmentPastEnd)),
            .fails("no EOI", Array(grey.dropLast(2)), .malformedJPEG(offset: scanStart, .noEndOfImage)),
            .fails("0xFF at the end of the scan", Array(grey.dropLast(1)), .malformedJPEG(offset: scanStart, .noEndOfImage)),
            .fails("entropy data between segments", Array(grey.dropLast(2)) + segment(0xFE, [1]) + [0x12, 0xFF, 0xD9],
                   .malformedJPEG(offset: grey.count + 3, .expectedMarker(found: 0x12))),
            .gives("fill before kept segments", soi + [0xFF, 0xFF, 0xFF] + grey.dropFirst(2),
                   soi + [0xFF, 0xFF, 0xFF] + grey.dropFirst(2)),
            .gives("fill before a dropped APP1", soi + [0xFF, 0xFF] + gpsSegment() + grey.dropFirst(2), grey),
            .gives("an empty APP1", soi + segment(0xE1, []) + grey.dropFirst(2), grey),
            .gives("an EXIF APP1 too short for a TIFF header", soi + exifOnly + grey.dropFirst(2), grey),
            .gives("an EXIF APP1 with an IFD offset past its end",
                   soi + segment(0xE1, Array("Exif".utf8) + [0, 0, 0x4D, 0x4D, 0, 0x2A, 0x7F, 0xFF, 0xFF, 0xFF]) + grey.dropFirst(2),
                   grey),
            .gives("an EXIF APP1 claiming 65535 IFD entries",
                   soi + segment(0xE1, Array("Exif".utf8) + [0, 0, 0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0xFF, 0xFF, 0x12, 0x01])
                       + grey.dropFirst(2),
                   grey),
            .gives("APP1 after EOI", grey + gpsSegment(), grey),
            .gives("garbage after EOI", grey + [0x00, 0xFF, 0xFF, 0x12], grey),
            .gives("RSTn and TEM between segments", soi + [0xFF, 0x01, 0xFF, 0xD0] + grey.dropFirst(2),
                   soi + [0xFF, 0x01, 0xFF, 0xD0] + grey.dropFirst(2)),
        ]
    }()

    @Test(arguments: hostileJPEGs)
    func hostileJPEG(_ input: Hostile) {
        Self.check(input)
    }

    static let hostilePNGs: [Hostile] = {
        let png = MediaFixtures.png(width: 4, height: 4)
        let withoutEnd = Array(png.dropLast(12))
        let header = Array(png[8 ..< 33])
        return [
            .fails("signature only", signature, .malformedPNG(offset: 8, .noEnd)),
            .fails("three bytes of a chunk", signature + [0, 0, 0], .malformedPNG(offset: 8, .chunkHeaderPastEnd)),
            .fails("length 0xFFFFFFFF", signature + [0xFF, 0xFF, 0xFF, 0xFF] + Array("IHDR".utf8) + [UInt8](repeating: 0, count: 16),
                   .malformedPNG(offset: 8, .chunkTooLong(0xFFFF_FFFF))),
            .fails("length 2^31", signature + [0x80, 0, 0, 0] + Array("IDAT".utf8),
                   .malformedPNG(offset: 8, .chunkTooLong(0x8000_0000))),
            .fails("chunk past the end", signature + [0, 0, 0, 13] + Array("IHDR".utf8) + [1, 2, 3, 4, 5],
                   .malformedPNG(offset: 8, .chunkPastEnd)),
            .fails("chunk without its CRC", Array(png[..<29]), .malformedPNG(offset: 8, .chunkPastEnd)),
            .fails("a type that is not letters", signature + chunk("IH1R", []), .malformedPNG(offset: 8, .invalidChunkType)),
            .fails("no IEND", withoutEnd, .malformedPNG(offset: withoutEnd.count, .noEnd)),
            .fails("an eXIf past the end", withoutEnd + [0, 0, 1, 0] + Array("eXIf".utf8) + [1, 2],
                   .malformedPNG(offset: withoutEnd.count, .chunkPastEnd)),
            .gives("data after IEND", png + Array("any bytes at all".utf8), png),
            .gives("a second PNG after IEND", png + MediaFixtures.png(width: 2, height: 2, variant: 1), png),
            .gives("metadata after IEND", png + chunk("eXIf", Array(gpsSegment().dropFirst(10))), png),
            .gives("an empty tEXt", signature + header + chunk("tEXt", []) + png.dropFirst(33), png),
            .gives("a private chunk", signature + header + chunk("prVt", [1, 2, 3]) + png.dropFirst(33), png),
        ]
    }()

    @Test(arguments: hostilePNGs)
    func hostilePNG(_ input: Hostile) {
        Self.check(input)
    }

    /// Every proper prefix of a file with GPS throws: nothing is returned from a file that was
    /// not walked to its end.
    static let truncatable: [[UInt8]] = [
        MediaFixtures.jpeg(width: 24, height: 16, exifDate: "2024:05:01 12:00:00", gps: eiffelTower, variant: 2),
        pngWithGPS(),
    ]

    @Test(arguments: truncatable)
    func everyTruncationThrows(_ file: [UInt8]) throws {
        for length in 2 ..< file.count {
            let prefix = Array(file.prefix(length))
            #expect(throws: LocationMetadataError.self, "\(length) of \(file.count) bytes") {
                _ = try LocationMetadata.strip(prefix)
            }
        }
        #expect(try LocationMetadata.strip(file).count < file.count)
    }

    /// Random byte changes to a JPEG and a PNG with GPS: each result throws or is a file that
    /// strips to itself.
    @Test func mutatedFilesThrowOrStripToThemselves() {
        var random = SplitMix64(seed: 15)
        let originals = [
            MediaFixtures.jpeg(width: 24, height: 16, exifDate: "2024:05:01 12:00:00", gps: Self.eiffelTower, orientation: 6),
            Self.insertingAfterStartOfImage(Self.gpsSegment(), into: MediaFixtures.scene(.night, width: 32, height: 24)),
            Self.pngWithGPS(),
        ]
        var outputs = 0
        for original in originals {
            for _ in 0 ..< 3000 {
                var mutated = original
                for _ in 0 ... random.next(below: 4) {
                    let index = 2 + random.next(below: mutated.count - 2)
                    mutated[index] = random.next(below: 4) == 0 ? 0xFF : UInt8(truncatingIfNeeded: random.next())
                }
                guard let stripped = try? LocationMetadata.strip(mutated) else { continue }
                outputs += 1
                #expect((try? LocationMetadata.strip(stripped)) == stripped)
            }
        }
        #expect(outputs > 0)
    }

    // MARK: Unsupported formats

    static let otherFormats: [(file: [UInt8], format: String)] = {
        let unknown = LocationMetadataError.unknownFormat
        var table: [(file: [UInt8], format: String)] = []
        table.append((MediaFixtures.heic(width: 640, height: 480, gps: eiffelTower), "HEIC"))
        table.append((MediaFixtures.mp4(durationSeconds: 2, width: 640, height: 480, creation: nil, location: eiffelTower), "MP4"))
        table.append((MediaFixtures.mp4(durationSeconds: 2, width: 640, height: 480, creation: nil, brand: "qt  "), "MOV"))
        table.append((MediaFixtures.m4a(durationSeconds: 2), "M4A"))
        table.append((MediaFixtures.mp3(durationSeconds: 1), "MP3"))
        table.append((MediaFixtures.mp3(durationSeconds: 1, id3: false), "MP3"))
        table.append((Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0], "GIF"))
        table.append((Array("RIFF".utf8) + [20, 0, 0, 0] + Array("WEBPVP8 ".utf8), "WebP"))
        table.append(([0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0], "AVIF"))
        table.append((Array("II*\0".utf8) + [8, 0, 0, 0], "TIFF"))
        table.append(([], unknown))
        table.append(([0x89, 0x50, 0x4E, 0x47], unknown))
        table.append(([0xFF, 0xD9], unknown))
        table.append((Array("latitude,longitude\n48.85,2.29\n".utf8), unknown))
        return table
    }()

    @Test(arguments: otherFormats)
    func otherFormatsAreRefusedByName(_ file: [UInt8], _ format: String) {
        #expect(throws: LocationMetadataError.unsupportedFormat(format)) { try LocationMetadata.strip(file) }
    }

    @Test func theErrorsSayWhatHappenedAndWhatToDo() {
        let heic = LocationMetadataError.unsupportedFormat("HEIC").description
        #expect(heic.contains("HEIC") && heic.contains("location accuracy below exact"))
        #expect(heic.contains("Approve the flow with exact location") && heic.contains("convert the photos to JPEG or PNG"))
        let unknown = LocationMetadataError.unsupportedFormat(LocationMetadataError.unknownFormat).description
        #expect(unknown.contains("does not recognise") && unknown.contains("JPEG or PNG"))
        #expect(LocationMetadataError.malformedJPEG(offset: 1234, .segmentPastEnd).description
            .hasPrefix("the JPEG's segment at byte 1234 runs past the end of the file; "))
        #expect(LocationMetadataError.malformedJPEG(offset: 2, .invalidMarker(0xD8)).description.contains("0xFFD8 at byte 2"))
        let png = LocationMetadataError.malformedPNG(offset: 8, .chunkTooLong(0xFFFF_FFFF)).description
        #expect(png.contains("byte 8") && png.contains("4294967295") && png.contains("undamaged copy"))
    }

    // MARK: Large files

    /// A photo of about 10 MB comes back as the encoder wrote it (its speed is measured in the
    /// benchmarks, not here).
    @Test func aTenMegabytePhotoLosesOnlyItsMetadata() throws {
        let encoded = Self.noiseJPEG(width: 4000, height: 3500)
        #expect(encoded.count > 9_500_000)
        let file = Self.insertingAfterStartOfImage(Self.gpsSegment(), into: encoded)
        let stripped = try LocationMetadata.strip(file)
        // Compared outside #expect, which would print both 10 MB arrays on a failure.
        let unchangedPicture = stripped == encoded
        #expect(unchangedPicture, "the stripped file must be the encoder's own")
    }

    // MARK: Helpers

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func check(_ input: Hostile) {
        do {
            let output = try LocationMetadata.strip(input.bytes)
            #expect(input.error == nil, "expected \(input.error.map { "\($0)" } ?? "") but got \(output.count) bytes")
            #expect(output == input.output)
            #expect((try? LocationMetadata.strip(output)) == output, "the output strips to itself")
        } catch {
            #expect(error == input.error)
        }
    }

    /// Decodes a JPEG or PNG at full size with the decoder compute functions use.
    static func pixels(_ file: [UInt8]) throws -> [UInt8] {
        let decoder = try ImageDecoder()
        return try decoder.decode(file, minimumSide: .max).image.pixels
    }

    /// The APP1 EXIF segment (with GPS) of a fixture JPEG.
    static func gpsSegment() -> [UInt8] {
        let jpeg = MediaFixtures.jpeg(exifDate: "2024:05:01 12:00:00", gps: eiffelTower)
        return segments(of: jpeg).first { $0.marker == 0xE1 }?.bytes ?? []
    }

    /// The GPS IFD's latitude and longitude rationals (the last 48 bytes of the fixture's TIFF).
    static func gpsRationals(of jpeg: [UInt8]) -> [[UInt8]] {
        guard let app1 = segments(of: jpeg).first(where: { $0.marker == 0xE1 }) else { return [] }
        return gpsRationals(ofTIFF: Array(app1.bytes.dropFirst(10)))
    }

    static func gpsRationals(ofTIFF tiff: [UInt8]) -> [[UInt8]] {
        let tail = Array(tiff.suffix(48))
        return [Array(tail[..<24]), Array(tail[24...])]
    }

    /// The EXIF segment `strip` writes for an orientation: IFD0 with that one tag, big-endian.
    static func orientationSegment(_ orientation: UInt8) -> [UInt8] {
        segment(0xE1, Array("Exif".utf8) + [0, 0] + [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8] + [0, 1]
            + [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0] + [0, 0, 0, 0])
    }

    /// A fixture PNG with an eXIf chunk holding GPS right after IHDR.
    static func pngWithGPS() -> [UInt8] {
        let png = MediaFixtures.png(width: 5, height: 3)
        return Array(png.prefix(33)) + chunk("eXIf", Array(gpsSegment().dropFirst(10))) + Array(png.dropFirst(33))
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    static func insertingAfterStartOfImage(_ segment: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg.prefix(2)) + segment + jpeg.dropFirst(2)
    }

    /// The marker segments before the first scan, each with its marker and whole bytes.
    static func segments(of jpeg: [UInt8]) -> [(marker: UInt8, bytes: [UInt8])] {
        var result: [(marker: UInt8, bytes: [UInt8])] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            let end = offset + 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
            guard end <= jpeg.count else { break }
            result.append((marker, Array(jpeg[offset ..< end])))
            if marker == 0xDA { break }
            offset = end
        }
        return result
    }

    static func markers(of jpeg: [UInt8]) -> [UInt8] {
        segments(of: jpeg).map(\.marker)
    }

    static func scanDataStart(of jpeg: [UInt8]) -> Int? {
        var offset = 2
        for segment in segments(of: jpeg) {
            offset += segment.bytes.count
            if segment.marker == 0xDA { return offset }
        }
        return nil
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0 ... haystack.count - needle.count).contains { haystack[$0 ..< $0 + needle.count].elementsEqual(needle) }
    }

    /// One PNG chunk and whether its CRC-32 is right.
    struct Chunk {
        let type: String
        let bytes: [UInt8]
        let crcIsValid: Bool
    }

    static func chunks(of png: [UInt8]) -> [Chunk] {
        var result: [Chunk] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset ..< offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 12 + length
            guard end <= png.count else { break }
            let stored = png[end - 4 ..< end].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            result.append(Chunk(type: String(decoding: png[offset + 4 ..< offset + 8], as: UTF8.self),
                                bytes: Array(png[offset ..< end]),
                                crcIsValid: stored == crc32(Array(png[offset + 4 ..< end - 4]))))
            offset = end
        }
        return result
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        let crc = crc32(typed)
        return be32(UInt32(data.count)) + typed + be32(crc)
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 (ISO 3309, as PNG uses), bit by bit.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0 ..< 8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A JPEG of random pixels: little for the encoder to compress, so the file is large.
    static func noiseJPEG(width: Int, height: Int) -> [UInt8] {
        var random = SplitMix64(seed: 10)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                raw.storeBytes(of: random.next(), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
        }
        return MediaFixtures.encodeJPEG(pixels, width: width, height: height)
    }
}
