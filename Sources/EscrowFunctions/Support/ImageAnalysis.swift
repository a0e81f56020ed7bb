/// What can be said of a picture from its pixels: brightness, contrast, colorfulness, the
/// dominant color, a perceptual hash and a few plain labels.
///
/// Computed on a reduced copy (at most `analysisSide` pixels per side), so the cost per picture
/// is bounded whatever its size.
///
/// Thread safety: a value type.
struct ImageAnalysis: Sendable, Equatable {
    /// The longer side of the copy the statistics are computed on.
    static let analysisSide = 96

    /// Mean luma (Rec. 709), 0 (black) to 1 (white).
    let brightness: Double
    /// Standard deviation of luma, 0 (flat) to 0.5.
    let contrast: Double
    /// Hasler and Süsstrunk's colorfulness metric on 0–255 samples: under 15 is practically
    /// grey, above 80 very colorful.
    let colorfulness: Double
    /// The most common color family: one of `ImageAnalysis.colorNames`.
    let dominantColor: String
    /// 64-bit difference hash (dHash) of the luma: pictures that look alike have hashes a small
    /// Hamming distance apart, whatever their size or encoding.
    let perceptualHash: UInt64
    /// Plain labels, in a fixed order: see `labels(…)`.
    let labels: [String]

    /// Hue families (from red round the circle) then the neutral ones.
    static let colorNames = ["red", "orange", "yellow", "green", "cyan", "blue", "purple", "pink", "black", "grey", "white"]

    /// Analyzes a decoded picture whose full size is `width` × `height`.
    init(_ decoded: RGBImage, width: Int, height: Int) {
        let image = decoded.reduced(toFit: Self.analysisSide)
        let pixelCount = image.width * image.height
        let topRows = max(1, image.height / 3)
        var lumaSum = 0.0, lumaSquares = 0.0
        var rgSum = 0.0, rgSquares = 0.0, ybSum = 0.0, ybSquares = 0.0
        var families = [Int](repeating: 0, count: Self.colorNames.count)
        var skyPixels = 0
        for index in 0..<pixelCount {
            let red = Double(image.pixels[index * 3])
            let green = Double(image.pixels[index * 3 + 1])
            let blue = Double(image.pixels[index * 3 + 2])
            let luma = 0.2126 * red + 0.7152 * green + 0.0722 * blue
            lumaSum += luma
            lumaSquares += luma * luma
            let rg = red - green
            let yb = 0.5 * (red + green) - blue
            rgSum += rg
            rgSquares += rg * rg
            ybSum += yb
            ybSquares += yb * yb
            let family = Self.family(red: red, green: green, blue: blue)
            families[family] += 1
            if index / image.width < topRows, family == 5 || (family == 4 && blue > green), luma > 90 { skyPixels += 1 }
        }
        let count = Double(pixelCount)
        let lumaMean = lumaSum / count
        brightness = lumaMean / 255
        contrast = (max(0, lumaSquares / count - lumaMean * lumaMean)).squareRoot() / 255
        let rgMean = rgSum / count, ybMean = ybSum / count
        let rgDeviation = max(0, rgSquares / count - rgMean * rgMean).squareRoot()
        let ybDeviation = max(0, ybSquares / count - ybMean * ybMean).squareRoot()
        colorfulness = (rgDeviation * rgDeviation + ybDeviation * ybDeviation).squareRoot()
            + 0.3 * (rgMean * rgMean + ybMean * ybMean).squareRoot()
        let dominant = families.indices.max { families[$0] < families[$1] || (families[$0] == families[$1] && $0 > $1) } ?? 9
        dominantColor = Self.colorNames[dominant]
        perceptualHash = Self.differenceHash(image)

        func share(_ names: String...) -> Double {
            Double(names.reduce(0) { $0 + families[Self.colorNames.firstIndex(of: $1) ?? 0] }) / count
        }
        var labels: [String] = []
        labels.append(width > height * 11 / 10 ? "landscape" : height > width * 11 / 10 ? "portrait" : "square")
        if brightness < 0.25 { labels.append("dark") } else if brightness > 0.7 { labels.append("bright") }
        if contrast < 0.05 { labels.append("flat") }
        if colorfulness < 15 { labels.append("monochrome") } else if colorfulness > 80 { labels.append("colorful") }
        if Double(skyPixels) / Double(topRows * image.width) >= 0.5 { labels.append("sky") }
        if share("green") >= 0.3 { labels.append("vegetation") }
        if share("red", "orange", "yellow") >= 0.4, brightness >= 0.2, brightness <= 0.75 { labels.append("warm light") }
        if brightness < 0.25, share("blue", "black") >= 0.7, share("white", "yellow") > 0 { labels.append("night") }
        if share("white") >= 0.6, share("black") >= 0.02, colorfulness < 15 { labels.append("document") }
        self.labels = labels
    }

    /// The color family of one pixel: a hue family when the pixel is saturated and not too dark,
    /// else black, grey or white by its value.
    private static func family(red: Double, green: Double, blue: Double) -> Int {
        let maximum = max(red, green, blue)
        let minimum = min(red, green, blue)
        let value = maximum / 255
        let saturation = maximum == 0 ? 0 : (maximum - minimum) / maximum
        if value < 0.2 { return 8 }
        if saturation < 0.25 { return value > 0.8 ? 10 : 9 }
        let delta = maximum - minimum
        var hue: Double
        if maximum == red {
            hue = 60 * ((green - blue) / delta)
        } else if maximum == green {
            hue = 60 * ((blue - red) / delta) + 120
        } else {
            hue = 60 * ((red - green) / delta) + 240
        }
        if hue < 0 { hue += 360 }
        switch hue {
        case ..<15: return 0
        case ..<45: return 1
        case ..<70: return 2
        case ..<165: return 3
        case ..<195: return 4
        case ..<255: return 5
        case ..<290: return 6
        case ..<335: return 7
        default: return 0
        }
    }

    /// dHash: the luma reduced to 9 × 8, one bit per horizontal neighbor pair (1 when the left
    /// one is brighter), row by row, most significant bit first.
    private static func differenceHash(_ image: RGBImage) -> UInt64 {
        let small = image.resampled(width: 9, height: 8)
        var hash: UInt64 = 0
        for y in 0..<8 {
            for x in 0..<8 {
                let left = (y * 9 + x) * 3
                let right = left + 3
                hash <<= 1
                if luma(small.pixels, at: left) > luma(small.pixels, at: right) { hash |= 1 }
            }
        }
        return hash
    }

    private static func luma(_ pixels: [UInt8], at index: Int) -> Int {
        (2126 * Int(pixels[index]) + 7152 * Int(pixels[index + 1]) + 722 * Int(pixels[index + 2]))
    }
}
