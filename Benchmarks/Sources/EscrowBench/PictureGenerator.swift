import Foundation

/// Deterministic 16 KB JPEG pictures for the photo figures: real, decodable baseline JPEGs of a
/// small synthetic scene (sky, sun, meadow, noise), each padded with a comment segment to exactly
/// `byteCount` bytes. Like the paper's 16 KB dog pictures they are a few pictures many times over:
/// the picture is one of `variants`, and the comment names the index, so every file has
/// different bytes (a different asset id) while decoding costs the same.
enum PictureGenerator {
    static let width = 224
    static let height = 168
    static let variants = 8

    /// `count` distinct JPEG files of exactly `byteCount` bytes.
    static func pictures(_ count: Int, byteCount: Int = 16 * 1024) -> [[UInt8]] {
        let bases = (0..<variants).map { JPEGEncoder.encode(scene(seed: UInt64($0 + 1)), width: width, height: height) }
        return (0..<count).map { index in
            let base = bases[index % variants]
            let label = Array("escrow-bench picture \(index) ".utf8)
            // SOI, then a COM segment (marker, 2-byte length counting itself) filling up to byteCount.
            let payload = byteCount - base.count - 4
            precondition(payload >= label.count, "the base picture is larger than \(byteCount) bytes")
            let filler = label + [UInt8](repeating: 0x2E, count: payload - label.count)
            let length = filler.count + 2
            return [0xFF, 0xD8, 0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + filler + base[2...]
        }
    }

    /// Writes `count` pictures as `IMG_00001.jpg`… into a new temporary folder.
    static func folder(_ count: Int) throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("escrow-bench-pictures-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, bytes) in pictures(count).enumerated() {
            let name = "IMG_" + String(repeating: "0", count: max(0, 5 - String(index).count)) + "\(index).jpg"
            try Data(bytes).write(to: folder.appendingPathComponent(name))
        }
        return folder
    }

    /// RGB pixels, row by row: a sky gradient over a meadow, a sun, a little noise.
    private static func scene(seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        let sunX = Double(Int.random(in: 20..<(width - 20), using: &random))
        let sunY = Double(Int.random(in: 12..<40, using: &random))
        let horizon = Int.random(in: height / 2..<(height * 3 / 4), using: &random)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var rgb: (Double, Double, Double)
                if y < horizon {
                    let t = Double(y) / Double(horizon)
                    rgb = (90 + 80 * t, 150 + 60 * t, 235 - 20 * t)
                    let dx = Double(x) - sunX, dy = Double(y) - sunY
                    if dx * dx + dy * dy < 100 { rgb = (255, 235, 140) }
                } else {
                    let t = Double(y - horizon) / Double(height - horizon)
                    rgb = (60 - 30 * t, 150 - 50 * t, 50 - 20 * t)
                }
                let noise = Double(Int.random(in: -6...6, using: &random))
                let index = (y * width + x) * 3
                pixels[index] = UInt8(max(0, min(255, rgb.0 + noise)))
                pixels[index + 1] = UInt8(max(0, min(255, rgb.1 + noise)))
                pixels[index + 2] = UInt8(max(0, min(255, rgb.2 + noise)))
            }
        }
        return pixels
    }
}

/// A minimal baseline JPEG encoder (YCbCr 4:4:4, the Annex K quantisation tables at quality 75,
/// fixed-length Huffman codes): enough to make real pictures for the decoders to work on, with
/// no dependency beyond Foundation.
enum JPEGEncoder {
    static func encode(_ rgb: [UInt8], width: Int, height: Int, quality: Int = 75) -> [UInt8] {
        let luma = scaled([16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
                           14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
                           18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
                           49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99], quality)
        let chroma = scaled([17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
                             24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99]
                            + [Int](repeating: 99, count: 32), quality)
        var out: [UInt8] = [0xFF, 0xD8]
        // Quantisation tables, in zig-zag order.
        segment(&out, 0xDB, [0] + zigzag.map { UInt8(luma[$0]) } + [1] + zigzag.map { UInt8(chroma[$0]) })
        segment(&out, 0xC0, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3,
                             1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1])
        // One DC table (12 symbols, 4-bit codes) and one AC table (162 symbols, 8-bit codes), both classes 0.
        var dcBits = [UInt8](repeating: 0, count: 16)
        dcBits[3] = 12
        var acBits = [UInt8](repeating: 0, count: 16)
        acBits[7] = UInt8(acSymbols.count)
        segment(&out, 0xC4, [0x00] + dcBits + (0..<12).map { UInt8($0) } + [0x10] + acBits + acSymbols)
        segment(&out, 0xDA, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0])

        var writer = BitWriter()
        var previousDC = [0, 0, 0]
        for blockY in stride(from: 0, to: height, by: 8) {
            for blockX in stride(from: 0, to: width, by: 8) {
                for component in 0..<3 {
                    var block = [Double](repeating: 0, count: 64)
                    for y in 0..<8 {
                        for x in 0..<8 {
                            let px = min(blockX + x, width - 1), py = min(blockY + y, height - 1)
                            let index = (py * width + px) * 3
                            let r = Double(rgb[index]), g = Double(rgb[index + 1]), b = Double(rgb[index + 2])
                            let value: Double = switch component {
                            case 0: 0.299 * r + 0.587 * g + 0.114 * b
                            case 1: -0.168736 * r - 0.331264 * g + 0.5 * b + 128
                            default: 0.5 * r - 0.418688 * g - 0.081312 * b + 128
                            }
                            block[y * 8 + x] = value - 128
                        }
                    }
                    let table = component == 0 ? luma : chroma
                    let coefficients = dct(block).enumerated().map { Int(($0.element / Double(table[$0.offset])).rounded()) }
                    let zz = zigzag.map { coefficients[$0] }
                    let difference = zz[0] - previousDC[component]
                    previousDC[component] = zz[0]
                    let dcSize = bitCount(difference)
                    writer.write(dcSize, bits: 4)
                    writer.write(magnitude(difference, dcSize), bits: dcSize)
                    var run = 0
                    for k in 1..<64 {
                        if zz[k] == 0 { run += 1; continue }
                        while run > 15 { writer.write(acCode[0xF0]!, bits: 8); run -= 16 }
                        let size = bitCount(zz[k])
                        writer.write(acCode[UInt8(run << 4 | size)]!, bits: 8)
                        writer.write(magnitude(zz[k], size), bits: size)
                        run = 0
                    }
                    if run > 0 { writer.write(acCode[0x00]!, bits: 8) }
                }
            }
        }
        writer.flush()
        out += writer.bytes
        out += [0xFF, 0xD9]
        return out
    }

    /// EOB, ZRL, then every (run, size) pair with size 1–10: the baseline AC alphabet.
    private static let acSymbols: [UInt8] = [0x00, 0xF0] + (0..<16).flatMap { run in (1...10).map { UInt8(run << 4 | $0) } }
    /// Code of each AC symbol: its position in `acSymbols` (canonical codes, all 8 bits long).
    private static let acCode: [UInt8: Int] = Dictionary(uniqueKeysWithValues: acSymbols.enumerated().map { ($0.element, $0.offset) })

    private static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    private static func scaled(_ table: [Int], _ quality: Int) -> [Int] {
        let scale = quality < 50 ? 5000 / quality : 200 - 2 * quality
        return table.map { max(1, min(255, ($0 * scale + 50) / 100)) }
    }

    private static func segment(_ out: inout [UInt8], _ marker: UInt8, _ body: [UInt8]) {
        let length = body.count + 2
        out += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }

    /// The 8×8 forward DCT (type II, JPEG scaling), straight from its definition.
    private static func dct(_ block: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 64)
        for v in 0..<8 {
            for u in 0..<8 {
                var sum = 0.0
                for y in 0..<8 {
                    for x in 0..<8 {
                        sum += block[y * 8 + x] * cosine[x * 8 + u] * cosine[y * 8 + v]
                    }
                }
                let cu = u == 0 ? 1 / 2.0.squareRoot() : 1, cv = v == 0 ? 1 / 2.0.squareRoot() : 1
                out[v * 8 + u] = 0.25 * cu * cv * sum
            }
        }
        return out
    }

    /// cosine[x * 8 + u] = cos((2x + 1)uπ / 16).
    private static let cosine: [Double] = (0..<64).map { index -> Double in
        let x = Double(index / 8), u = Double(index % 8)
        return cos((2 * x + 1) * u * Double.pi / 16)
    }

    private static func bitCount(_ value: Int) -> Int {
        var magnitude = abs(value), bits = 0
        while magnitude > 0 { bits += 1; magnitude >>= 1 }
        return bits
    }

    /// The low `size` bits JPEG writes for `value`: itself when positive, value − 1 (ones' complement) when negative.
    private static func magnitude(_ value: Int, _ size: Int) -> Int {
        value >= 0 ? value : value + (1 << size) - 1
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        private var buffer = 0
        private var count = 0

        mutating func write(_ value: Int, bits: Int) {
            guard bits > 0 else { return }
            buffer = (buffer << bits) | (value & ((1 << bits) - 1))
            count += bits
            while count >= 8 {
                let byte = UInt8((buffer >> (count - 8)) & 0xFF)
                bytes.append(byte)
                if byte == 0xFF { bytes.append(0) }
                count -= 8
            }
            buffer &= (1 << count) - 1
        }

        mutating func flush() {
            if count > 0 { write((1 << (8 - count)) - 1, bits: 8 - count) }
        }
    }
}
