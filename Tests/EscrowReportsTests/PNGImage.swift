/// A PNG image decoded with nothing but the standard library, so a test can look at the pixels of a
/// screenshot: 8-bit RGB or RGBA, not interlaced (what Chromium writes). Its zlib stream is inflated
/// by `Inflater` (RFC 1950/1951).
struct PNGImage {
    /// Why a file could not be decoded.
    struct DecodingError: Error, CustomStringConvertible {
        var description: String
    }

    let width: Int
    let height: Int
    /// Bytes per pixel: 3 (RGB) or 4 (RGBA).
    let bytesPerPixel: Int
    /// The pixels row by row, `bytesPerPixel` bytes each.
    let pixels: [UInt8]

    /// Decodes a PNG file's bytes.
    init(_ bytes: [UInt8]) throws(DecodingError) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count > 8, Array(bytes[0..<8]) == signature else { throw DecodingError(description: "not a PNG file") }
        func uint32(_ offset: Int) -> Int {
            Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        }
        var offset = 8
        var header: (width: Int, height: Int, depth: UInt8, colorType: UInt8, interlace: UInt8)?
        var compressed: [UInt8] = []
        var ended = false
        while offset + 12 <= bytes.count, !ended {
            let length = uint32(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let start = offset + 8
            guard length >= 0, start + length + 4 <= bytes.count else { throw DecodingError(description: "chunk \(type) is cut short") }
            switch type {
            case "IHDR":
                guard length == 13 else { throw DecodingError(description: "IHDR has \(length) bytes") }
                header = (uint32(start), uint32(start + 4), bytes[start + 8], bytes[start + 9], bytes[start + 12])
            case "IDAT":
                compressed += bytes[start..<(start + length)]
            case "IEND":
                ended = true
            default:
                break
            }
            offset = start + length + 4
        }
        guard let header, ended else { throw DecodingError(description: "no IHDR or no IEND") }
        guard header.depth == 8, header.colorType == 2 || header.colorType == 6, header.interlace == 0 else {
            throw DecodingError(description: "unsupported: depth \(header.depth), colour type \(header.colorType), interlace \(header.interlace)")
        }
        guard header.width > 0, header.height > 0, header.width <= 16_384, header.height <= 16_384 else {
            throw DecodingError(description: "size \(header.width)×\(header.height)")
        }
        let bytesPerPixel = header.colorType == 6 ? 4 : 3
        let stride = header.width * bytesPerPixel
        guard compressed.count > 2, (Int(compressed[0]) << 8 | Int(compressed[1])) % 31 == 0, compressed[0] & 0x0F == 8 else {
            throw DecodingError(description: "not a zlib stream")
        }
        var inflater = Inflater(Array(compressed[2...]), expected: (stride + 1) * header.height)
        do {
            try inflater.inflate()
        } catch {
            throw DecodingError(description: "inflating: \(error)")
        }
        let raw = inflater.output
        guard raw.count >= (stride + 1) * header.height else { throw DecodingError(description: "image data is cut short") }

        // Undo each row's filter (PNG specification, section 9).
        var pixels = [UInt8](repeating: 0, count: stride * header.height)
        for row in 0..<header.height {
            let filter = raw[row * (stride + 1)]
            let source = row * (stride + 1) + 1
            let target = row * stride
            for column in 0..<stride {
                let x = Int(raw[source + column])
                let left = column >= bytesPerPixel ? Int(pixels[target + column - bytesPerPixel]) : 0
                let up = row > 0 ? Int(pixels[target - stride + column]) : 0
                let upLeft = row > 0 && column >= bytesPerPixel ? Int(pixels[target - stride + column - bytesPerPixel]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = left
                case 2: predicted = up
                case 3: predicted = (left + up) / 2
                case 4:
                    let estimate = left + up - upLeft
                    let (toLeft, toUp, toUpLeft) = (abs(estimate - left), abs(estimate - up), abs(estimate - upLeft))
                    predicted = toLeft <= toUp && toLeft <= toUpLeft ? left : (toUp <= toUpLeft ? up : upLeft)
                default: throw DecodingError(description: "row \(row) has filter \(filter)")
                }
                pixels[target + column] = UInt8(truncatingIfNeeded: x + predicted)
            }
        }
        self.width = header.width
        self.height = header.height
        self.bytesPerPixel = bytesPerPixel
        self.pixels = pixels
    }

    /// How many pixels have exactly each of the colours (`0xRRGGBB`).
    func count(of colors: [UInt32]) -> [UInt32: Int] {
        var counts = [Int](repeating: 0, count: colors.count)
        var index = 0
        while index + 2 < pixels.count {
            let color = UInt32(pixels[index]) << 16 | UInt32(pixels[index + 1]) << 8 | UInt32(pixels[index + 2])
            for (position, wanted) in colors.enumerated() where wanted == color { counts[position] += 1 }
            index += bytesPerPixel
        }
        return Dictionary(uniqueKeysWithValues: zip(colors, counts))
    }

    /// How many different colours the image has.
    var distinctColors: Int {
        var seen = Set<UInt32>()
        var index = 0
        while index + 2 < pixels.count {
            seen.insert(UInt32(pixels[index]) << 16 | UInt32(pixels[index + 1]) << 8 | UInt32(pixels[index + 2]))
            index += bytesPerPixel
        }
        return seen.count
    }
}

/// A DEFLATE decoder (RFC 1951) after zlib's `puff.c`: stored, fixed and dynamic Huffman blocks.
struct Inflater {
    enum Failure: Error {
        case cutShort, badBlockType, badStoredLength, badCode, badLengths, distanceTooFar
    }

    /// A canonical Huffman code: how many codes of each length, and the symbols in code order.
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        init(lengths: [Int]) {
            for length in lengths { counts[length] += 1 }
            counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    private let input: [UInt8]
    private var position = 0
    private var bitBuffer = 0
    private var bitCount = 0
    private(set) var output: [UInt8] = []

    init(_ input: [UInt8], expected: Int) {
        self.input = input
        output.reserveCapacity(expected)
    }

    private static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83,
                                     99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11,
                                        11, 12, 12, 13, 13]
    private static let fixedLengths = Huffman(lengths: (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 })
    private static let fixedDistances = Huffman(lengths: [Int](repeating: 5, count: 30))

    /// Decodes every block of the stream into `output`.
    mutating func inflate() throws(Failure) {
        var last = 0
        repeat {
            last = try bits(1)
            switch try bits(2) {
            case 0: try stored()
            case 1: try codes(Self.fixedLengths, Self.fixedDistances)
            case 2: try dynamic()
            default: throw .badBlockType
            }
        } while last == 0
    }

    private mutating func bits(_ need: Int) throws(Failure) -> Int {
        var value = bitBuffer
        while bitCount < need {
            guard position < input.count else { throw .cutShort }
            value |= Int(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        bitBuffer = value >> need
        bitCount -= need
        return value & ((1 << need) - 1)
    }

    private mutating func stored() throws(Failure) {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw .cutShort }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        guard length == ~complement & 0xFFFF else { throw .badStoredLength }
        position += 4
        guard position + length <= input.count else { throw .cutShort }
        output += input[position..<(position + length)]
        position += length
    }

    private mutating func decode(_ code: Huffman) throws(Failure) -> Int {
        var value = 0, first = 0, index = 0
        for length in 1...15 {
            value |= try bits(1)
            let count = code.counts[length]
            if value - count < first { return code.symbols[index + (value - first)] }
            index += count
            first = (first + count) << 1
            value <<= 1
        }
        throw .badCode
    }

    private mutating func codes(_ lengths: Huffman, _ distances: Huffman) throws(Failure) {
        while true {
            let symbol = try decode(lengths)
            if symbol < 256 {
                output.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let lengthIndex = symbol - 257
            guard lengthIndex < 29 else { throw .badCode }
            let length = Self.lengthBase[lengthIndex] + (try bits(Self.lengthExtra[lengthIndex]))
            let distanceIndex = try decode(distances)
            guard distanceIndex < 30 else { throw .badCode }
            let distance = Self.distanceBase[distanceIndex] + (try bits(Self.distanceExtra[distanceIndex]))
            guard distance <= output.count else { throw .distanceTooFar }
            for _ in 0..<length { output.append(output[output.count - distance]) }
        }
    }

    private mutating func dynamic() throws(Failure) {
        let lengthCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeCount = try bits(4) + 4
        guard lengthCount <= 286, distanceCount <= 30 else { throw .badLengths }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeCount { codeLengths[order[index]] = try bits(3) }
        let lengthCode = Huffman(lengths: codeLengths)
        var lengths: [Int] = []
        while lengths.count < lengthCount + distanceCount {
            let symbol = try decode(lengthCode)
            switch symbol {
            case 0..<16: lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw .badLengths }
                lengths += repeatElement(previous, count: 3 + (try bits(2)))
            case 17: lengths += repeatElement(0, count: 3 + (try bits(3)))
            default: lengths += repeatElement(0, count: 11 + (try bits(7)))
            }
        }
        guard lengths.count == lengthCount + distanceCount, lengths[256] != 0 else { throw .badLengths }
        try codes(Huffman(lengths: Array(lengths[..<lengthCount])), Huffman(lengths: Array(lengths[lengthCount...])))
    }
}
