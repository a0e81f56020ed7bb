/// A picture as 8-bit RGB samples, 3 bytes per pixel, rows top to bottom.
///
/// Thread safety: a value type; safe to share once built.
struct RGBImage: Sendable {
    let width: Int
    let height: Int
    /// `width * height * 3` bytes: red, green, blue of each pixel.
    let pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 3, "RGB pixels must fill width × height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The picture scaled down by area averaging so that neither side exceeds `maxSide`, keeping
    /// the aspect ratio (at least 1 pixel per side); the picture itself when it already fits.
    func reduced(toFit maxSide: Int) -> RGBImage {
        let longer = max(width, height)
        guard longer > maxSide else { return self }
        let targetWidth = max(1, width * maxSide / longer)
        let targetHeight = max(1, height * maxSide / longer)
        return resampled(width: targetWidth, height: targetHeight)
    }

    /// The picture resampled to exactly `width` × `height` by area averaging: each target pixel is
    /// the mean of the source pixels whose centres fall in its area (nearest pixel when enlarging).
    func resampled(width targetWidth: Int, height targetHeight: Int) -> RGBImage {
        var sums = [Int](repeating: 0, count: targetWidth * targetHeight * 3)
        var counts = [Int](repeating: 0, count: targetWidth * targetHeight)
        for y in 0..<height {
            let targetY = y * targetHeight / height
            for x in 0..<width {
                let target = targetY * targetWidth + x * targetWidth / width
                let source = (y * width + x) * 3
                sums[target * 3] += Int(pixels[source])
                sums[target * 3 + 1] += Int(pixels[source + 1])
                sums[target * 3 + 2] += Int(pixels[source + 2])
                counts[target] += 1
            }
        }
        var result = [UInt8](repeating: 0, count: targetWidth * targetHeight * 3)
        for target in 0..<counts.count {
            if counts[target] > 0 {
                for channel in 0..<3 {
                    result[target * 3 + channel] = UInt8(sums[target * 3 + channel] / counts[target])
                }
            } else {
                // Enlarging: no source pixel landed here; take the nearest one.
                let y = (target / targetWidth) * height / targetHeight
                let x = (target % targetWidth) * width / targetWidth
                let source = (y * width + x) * 3
                for channel in 0..<3 { result[target * 3 + channel] = pixels[source + channel] }
            }
        }
        return RGBImage(width: targetWidth, height: targetHeight, pixels: result)
    }
}
