extension MediaProbe {
    /// Reads a WebP: the canvas size from its first chunk (`VP8X`, `VP8 ` or `VP8L`).
    ///
    /// - Throws: `ProbeFailure` when the first chunk is truncated or not one of those three.
    static func probeWebP(_ data: ProbeBytes) throws(ProbeFailure) -> MediaInfo {
        var info = MediaInfo(mediaType: .image, format: "webp")
        let chunk = 20
        switch data.fourCC(at: 12) {
        case "VP8X":
            if let width = data.u24le(at: chunk + 4), let height = data.u24le(at: chunk + 7) {
                info.pixelWidth = Int(width) + 1
                info.pixelHeight = Int(height) + 1
            }
        case "VP8 ":
            if data.slice(chunk + 3, 3).elementsEqual([0x9D, 0x01, 0x2A]),
               let width = data.u16le(at: chunk + 6), let height = data.u16le(at: chunk + 8) {
                info.pixelWidth = Int(width & 0x3FFF)
                info.pixelHeight = Int(height & 0x3FFF)
            }
        case "VP8L":
            if data.u8(at: chunk) == 0x2F, let bits = data.u32le(at: chunk + 1) {
                info.pixelWidth = Int(bits & 0x3FFF) + 1
                info.pixelHeight = Int((bits >> 14) & 0x3FFF) + 1
            }
        default:
            break
        }
        guard info.pixelWidth != nil else { throw ProbeFailure("corrupt WebP: no readable VP8, VP8L or VP8X chunk") }
        return info
    }
}
