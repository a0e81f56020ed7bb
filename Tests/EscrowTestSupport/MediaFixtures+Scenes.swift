import CTurboJPEG
import Foundation

/// Colored test pictures: simple synthetic scenes encoded as real JPEGs with libjpeg-turbo, for
/// the tests (and sample data) of functions that look at pixels.
extension MediaFixtures {
    /// What a scene shows.
    public enum Scene: String, Sendable, CaseIterable {
        /// Blue sky over a green meadow.
        case meadow
        /// An orange-red sky over a dark horizon.
        case sunset
        /// A dark blue night with a few lights.
        case night
        /// Black lines of text on white paper.
        case document
    }

    /// A JPEG of `scene`, `width` × `height` pixels (4:2:0, quality 85). `seed` adds a little
    /// noise, so every seed gives different bytes (and pictures that still look alike).
    /// `exifDate` ("YYYY:MM:DD HH:MM:SS") adds an EXIF segment with DateTimeOriginal, as a camera writes.
    ///
    /// - Returns: The JPEG's bytes.
    public static func scene(_ scene: Scene, width: Int = 320, height: Int = 240, seed: UInt64 = 0,
                             exifDate: String? = nil) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let v = Double(y) / Double(max(1, height - 1))
            for x in 0..<width {
                let u = Double(x) / Double(max(1, width - 1))
                var (red, green, blue) = color(of: scene, u: u, v: v, x: x, y: y, width: width, height: height)
                let noise = Double(random.next(below: 9)) - 4
                red += noise; green += noise; blue += noise
                let index = (y * width + x) * 3
                pixels[index] = UInt8(max(0, min(255, red)))
                pixels[index + 1] = UInt8(max(0, min(255, green)))
                pixels[index + 2] = UInt8(max(0, min(255, blue)))
            }
        }
        let jpeg = encodeJPEG(pixels, width: width, height: height)
        guard let exifDate else { return jpeg }
        return Array(jpeg.prefix(2)) + segment(0xE1, Array("Exif".utf8) + [0, 0]
            + exifTIFF(date: exifDate, offsetTime: nil, gps: nil, orientation: nil)) + jpeg.dropFirst(2)
    }

    private static func color(of scene: Scene, u: Double, v: Double, x: Int, y: Int, width: Int,
                              height: Int) -> (Double, Double, Double) {
        switch scene {
        case .meadow:
            // The sky brightens towards the sun on the right; the hills roll.
            let horizon = 0.55 + 0.08 * sin(u * 7)
            if v < horizon { return (70 + 60 * v + 40 * u, 140 + 50 * v + 30 * u, 235) }
            return (60 + 30 * sin(u * 40), 140 + 30 * v, 50)
        case .sunset:
            // The sun sets on the left; a dark skyline below.
            if v > 0.8 - 0.1 * (sin(u * 13) + 1) / 2 { return (30, 20, 25) }
            return (250 - 30 * v, 170 - 110 * v - 60 * u, 40 + 20 * v)
        case .night:
            let lit = (x / 8 + y / 8) % 23 == 0 && v > 0.5
            return lit ? (250, 230, 150) : (10 + 10 * v, 15 + 10 * v, 45 + 20 * (1 - v))
        case .document:
            let margin = width / 10
            let line = y > height / 10 && y < height * 9 / 10 && (y / 4) % 3 == 0
                && x > margin && x < width - margin - (y * 7 % (width / 3))
            return line ? (25, 25, 25) : (248, 248, 245)
        }
    }

    /// Encodes RGB pixels as a 4:2:0 JPEG of quality 85.
    public static func encodeJPEG(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        guard let encoder = tjInitCompress() else { preconditionFailure("libjpeg-turbo could not create an encoder") }
        defer { tjDestroy(encoder) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer {
            tjCompress2(encoder, $0.baseAddress, Int32(width), 0, Int32(height), TJPF_RGB.rawValue, &buffer, &size,
                        Int32(TJSAMP_420.rawValue), 85, 0)
        }
        guard status == 0, let buffer else { preconditionFailure("libjpeg-turbo could not encode a test picture") }
        defer { tjFree(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}
