extension MediaProbe {
    /// Reads a GIF: the logical screen size from the header.
    ///
    /// - Throws: `ProbeFailure` when the header is truncated.
    static func probeGIF(_ data: ProbeBytes) throws(ProbeFailure) -> MediaInfo {
        guard let width = data.u16le(at: 6), let height = data.u16le(at: 8) else {
            throw ProbeFailure("corrupt GIF: truncated logical screen descriptor")
        }
        var info = MediaInfo(mediaType: .image, format: "gif")
        info.pixelWidth = width == 0 ? nil : Int(width)
        info.pixelHeight = height == 0 ? nil : Int(height)
        return info
    }
}
