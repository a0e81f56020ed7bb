import EscrowTestSupport
import Foundation
import Testing
@testable import EscrowStore

@Suite("MediaProbe")
struct MediaProbeTests {
    private func probe(_ bytes: [UInt8], file: String = "test") throws -> MediaInfo {
        let info = try MediaProbe.probe(bytes, file: file)
        return try #require(info)
    }

    // MARK: JPEG

    @Test("JPEG size comes from the SOF marker", arguments: [(1, 1), (8, 8), (33, 17), (640, 480), (4000, 3000)])
    func jpegSize(width: Int, height: Int) throws {
        let info = try probe(MediaFixtures.jpeg(width: width, height: height))
        #expect(info.mediaType == .image)
        #expect(info.format == "jpeg")
        #expect(info.pixelWidth == width)
        #expect(info.pixelHeight == height)
        #expect(info.creationDate == nil)
        #expect(info.latitude == nil && info.longitude == nil)
    }

    @Test("EXIF GPS is signed by its N/S/E/W references",
          arguments: [(48.8584, 2.2945), (40.6892, -74.0445), (-33.8568, 151.2153), (-22.9519, -43.2105)])
    func jpegGPS(latitude: Double, longitude: Double) throws {
        let info = try probe(MediaFixtures.jpeg(exifDate: "2025:03:14 15:09:26", gps: (latitude, longitude)))
        #expect(abs((info.latitude ?? 0) - latitude) < 1e-6)
        #expect(abs((info.longitude ?? 0) - longitude) < 1e-6)
        #expect(info.creationDate == 1_741_964_966)
    }

    @Test("EXIF DateTimeOriginal without an offset is UTC; OffsetTimeOriginal shifts it",
          arguments: [
              ("2025:01:01 00:00:00", nil, 1_735_689_600.0),
              ("2025:06:30 12:34:56", "+02:00", 1_751_279_696.0),
              ("2025:06:30 12:34:56", "-05:30", 1_751_306_696.0),
              ("1999:12:31 23:59:59", nil, 946_684_799.0),
          ] as [(String, String?, Double)])
    func jpegDate(date: String, offset: String?, expected: Double) throws {
        let info = try probe(MediaFixtures.jpeg(exifDate: date, offsetTime: offset))
        #expect(info.creationDate == expected)
        #expect(info.latitude == nil)
    }

    @Test("EXIF orientation 5–8 swaps width and height", arguments: [(1, false), (3, false), (5, true), (6, true), (8, true)])
    func jpegOrientation(orientation: Int, swapped: Bool) throws {
        let info = try probe(MediaFixtures.jpeg(width: 40, height: 24, orientation: orientation))
        #expect(info.pixelWidth == (swapped ? 24 : 40))
        #expect(info.pixelHeight == (swapped ? 40 : 24))
    }

    @Test("variant and payloadBytes change the bytes, not the metadata")
    func jpegVariantAndPadding() throws {
        let plain = MediaFixtures.jpeg(width: 16, height: 16, exifDate: "2025:02:03 04:05:06")
        let variant = MediaFixtures.jpeg(width: 16, height: 16, exifDate: "2025:02:03 04:05:06", variant: 7)
        let padded = MediaFixtures.jpeg(width: 16, height: 16, exifDate: "2025:02:03 04:05:06", payloadBytes: 16384)
        #expect(plain != variant)
        #expect(abs(padded.count - 16384) <= 4)
        #expect(try probe(plain) == probe(variant))
        #expect(try probe(plain) == probe(padded))
    }

    @Test("fill bytes before a marker are skipped")
    func jpegFillBytes() throws {
        var bytes = MediaFixtures.jpeg(width: 20, height: 10)
        let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF], at: sof)
        let info = try probe(bytes)
        #expect(info.pixelWidth == 20 && info.pixelHeight == 10)
    }

    // MARK: Other images

    @Test("PNG size comes from IHDR", arguments: [(1, 1), (300, 301), (1024, 3)])
    func pngSize(width: Int, height: Int) throws {
        let info = try probe(MediaFixtures.png(width: width, height: height, variant: 1))
        #expect(info.format == "png" && info.mediaType == .image)
        #expect(info.pixelWidth == width && info.pixelHeight == height)
    }

    @Test("GIF and WebP are recognised as images")
    func gifAndWebP() throws {
        let gif = Array("GIF89a".utf8) + [0x40, 0x01, 0xF0, 0x00, 0, 0, 0]
        let info = try probe(gif)
        #expect(info.format == "gif" && info.pixelWidth == 320 && info.pixelHeight == 240)
        let vp8x: [UInt8] = Array("RIFF".utf8) + [30, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0]
            + [0, 0, 0, 0] + [0x7F, 0x07, 0x00] + [0x37, 0x04, 0x00]
        let webp = try probe(vp8x)
        #expect(webp.format == "webp" && webp.pixelWidth == 1920 && webp.pixelHeight == 1080)
    }

    @Test("HEIC size from the primary item's ispe, EXIF from the Exif item")
    func heic() throws {
        let info = try probe(MediaFixtures.heic(width: 4032, height: 3024, exifDate: "2025:05:06 07:08:09", gps: (35.6586, -139.7454)))
        #expect(info.format == "heic" && info.mediaType == .image)
        #expect(info.pixelWidth == 4032 && info.pixelHeight == 3024)
        #expect(info.creationDate == 1_746_515_289)
        #expect(abs((info.latitude ?? 0) - 35.6586) < 1e-6)
        #expect(abs((info.longitude ?? 0) + 139.7454) < 1e-6)
        let bare = try probe(MediaFixtures.heic(width: 100, height: 50))
        #expect(bare.pixelWidth == 100 && bare.pixelHeight == 50 && bare.creationDate == nil)
    }

    // MARK: ISO media

    @Test("MP4 duration, size and creation time",
          arguments: [(12.5, 1920, 1080, 0, false), (0.5, 640, 360, 1, false), (3600, 3840, 2160, 0, true)])
    func mp4(duration: Double, width: Int, height: Int, version: Int, largeSize: Bool) throws {
        let created = Date(timeIntervalSince1970: 1_735_000_000)
        let info = try probe(MediaFixtures.mp4(durationSeconds: duration, width: width, height: height, creation: created,
                                               mvhdVersion: version, largeSize: largeSize))
        #expect(info.mediaType == .video && info.format == "mp4")
        #expect(info.duration == duration)
        #expect(info.pixelWidth == width && info.pixelHeight == height)
        #expect(info.creationDate == 1_735_000_000)
    }

    @Test("MOV brand, unknown creation time and a ©xyz location")
    func mov() throws {
        let info = try probe(MediaFixtures.mp4(durationSeconds: 3, width: 1080, height: 1920, creation: nil, brand: "qt  ",
                                               location: (latitude: -33.8568, longitude: 151.2153)))
        #expect(info.format == "mov" && info.mediaType == .video)
        #expect(info.creationDate == nil)
        #expect(abs((info.latitude ?? 0) + 33.8568) < 1e-6)
        #expect(abs((info.longitude ?? 0) - 151.2153) < 1e-6)
    }

    @Test("M4A is audio", arguments: [1.0, 200.0, 5400.5])
    func m4a(duration: Double) throws {
        let info = try probe(MediaFixtures.m4a(durationSeconds: duration))
        #expect(info.mediaType == .audio && info.format == "m4a")
        #expect(abs((info.duration ?? 0) - duration) < 1.0 / 600)
        #expect(info.pixelWidth == nil)
    }

    @Test("ISO 6709 strings", arguments: [
        ("+48.8577+002.2950+035.000/", 48.8577, 2.2950),
        ("-33.8568+151.2153/", -33.8568, 151.2153),
        ("+4851.462+00217.700/", 48.8577, 2.295),
        ("+485127.72-0021742.0/", 48.8577, -2.295),
    ])
    func iso6709(text: String, latitude: Double, longitude: Double) throws {
        let coordinate = try #require(ISO6709.coordinate(text))
        #expect(abs(coordinate.latitude - latitude) < 1e-4)
        #expect(abs(coordinate.longitude - longitude) < 1e-4)
    }

    // MARK: MP3

    @Test("MP3 CBR duration is estimated from the bitrate", arguments: [(10.0, 128), (2.4, 32), (60.0, 320), (1.0, 192)])
    func mp3CBR(duration: Double, bitrate: Int) throws {
        let info = try probe(MediaFixtures.mp3(durationSeconds: duration, bitrateKbps: bitrate))
        #expect(info.mediaType == .audio && info.format == "mp3")
        #expect(abs((info.duration ?? 0) - duration) <= 0.024)
        let untagged = try probe(MediaFixtures.mp3(durationSeconds: duration, bitrateKbps: bitrate, id3: false))
        #expect(untagged.duration == info.duration)
    }

    @Test("MP3 duration comes from a Xing header when present", arguments: [1000, 1, 41667])
    func mp3Xing(frames: Int) throws {
        let info = try probe(MediaFixtures.mp3(durationSeconds: 0.24, vbrFrameCount: frames))
        #expect(info.duration == Double(frames) * 1152 / 48000)
    }

    // MARK: Not media, corrupt

    @Test("non-media files are nil", arguments: [
        Array("hello, world\n".utf8),
        Array("BEGIN:VCARD\nVERSION:3.0\nEND:VCARD\n".utf8),
        [0, 0, 0, 1] + Array("Bud1".utf8) + [UInt8](repeating: 0, count: 60),
        [],
        [0xFF],
        [0xFF, 0xFB, 0x90, 0x00] + Array("not really an mp3".utf8) + [UInt8](repeating: 0x41, count: 500),
        Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 10),
        [0, 0, 0, 16] + Array("ftypcrx ".utf8) + [0, 0, 0, 1],
    ])
    func notMedia(bytes: [UInt8]) throws {
        #expect(try MediaProbe.probe(bytes, file: "x") == nil)
    }

    @Test("corrupt files throw an ImportError naming the file", arguments: [
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00],
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46],
        [0xFF, 0xD8, 0xFF, 0xD9],
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13],
        Array("GIF89a".utf8) + [1],
        Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WEBPJUNK".utf8),
        [0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 0, 0] + MediaFixtures.box("mdat", [1, 2, 3]),
        [0, 0, 0, 16] + Array("ftypheic".utf8) + [0, 0, 0, 0],
        [0, 0, 0, 12] + Array("ftypqt  ".utf8) + MediaFixtures.box("moov", MediaFixtures.box("free", [])),
        Array("ID3".utf8) + [4, 0, 0, 0, 0, 0x7F, 0x7F],
        Array("ID3".utf8) + [4, 0, 0, 0x80, 0, 0, 0, 0, 0, 0],
    ])
    func corrupt(bytes: [UInt8]) throws {
        #expect {
            _ = try MediaProbe.probe(bytes, file: "photos/bad.bin")
        } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.file == "photos/bad.bin" && error.line == nil && !error.reason.isEmpty
        }
    }

    @Test("EXIF dates that are blank or impossible are ignored",
          arguments: ["0000:00:00 00:00:00", "    :  :     :  :  ", "2025:13:01 00:00:00", "2025:01:01"])
    func badExifDates(text: String) {
        #expect(ExifDate.seconds(text, offset: nil) == nil)
    }

    // MARK: Robustness

    static let fixtures: [String: [UInt8]] = [
        "jpeg": MediaFixtures.jpeg(width: 24, height: 16, exifDate: "2025:03:14 15:09:26", gps: (48.85, -2.29), orientation: 6),
        "png": MediaFixtures.png(width: 9, height: 7, variant: 1),
        "heic": MediaFixtures.heic(width: 64, height: 48, exifDate: "2025:03:14 15:09:26", gps: (1, 2)),
        "mp4": MediaFixtures.mp4(durationSeconds: 2, width: 32, height: 16, creation: Date(timeIntervalSince1970: 0),
                                  location: (latitude: 10, longitude: 20)),
        "mov": MediaFixtures.mp4(durationSeconds: 2, width: 32, height: 16, creation: nil, brand: "qt  ", mvhdVersion: 1,
                                  largeSize: true),
        "m4a": MediaFixtures.m4a(durationSeconds: 3),
        "mp3": MediaFixtures.mp3(durationSeconds: 0.1, bitrateKbps: 32),
        "mp3-xing": MediaFixtures.mp3(durationSeconds: 0.05, bitrateKbps: 32, vbrFrameCount: 9),
    ]

    @Test("every truncation of every fixture returns or throws", arguments: fixtures.keys.sorted())
    func truncations(name: String) throws {
        let bytes = try #require(Self.fixtures[name])
        for length in 0 ..< bytes.count {
            expectReturnsOrThrows(Array(bytes.prefix(length)), name: name)
        }
    }

    @Test("random mutations of every fixture return or throw", arguments: fixtures.keys.sorted())
    func mutations(name: String) throws {
        let bytes = try #require(Self.fixtures[name])
        var random = SplitMix64(seed: UInt64(bytes.count))
        for _ in 0 ..< 2000 {
            var mutated = bytes
            for _ in 0 ... random.next(below: 8) {
                let index = random.next(below: mutated.count)
                switch random.next(below: 3) {
                case 0: mutated[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: mutated[index] = [0x00, 0xFF, 0x7F, 0x80, 0x01][random.next(below: 5)]
                default: mutated[index] ^= 1 << UInt8(random.next(below: 8))
                }
            }
            expectReturnsOrThrows(mutated, name: name)
        }
    }

    private func expectReturnsOrThrows(_ bytes: [UInt8], name: String) {
        do {
            _ = try MediaProbe.probe(bytes, file: name)
        } catch {
            #expect(error.file == name && !error.reason.isEmpty)
        }
    }
}
