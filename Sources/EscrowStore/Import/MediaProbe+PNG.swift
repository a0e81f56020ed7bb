extension MediaProbe {
    /// Reads a PNG: pixel size from IHDR and, when present, EXIF from an `eXIf` chunk.
    ///
    /// Chunks are walked by their length fields (at most 4096 of them) until IDAT, IEND or the end
    /// of the buffer; CRCs are not checked.
    ///
    /// - Throws: `ProbeFailure` when the IHDR chunk is missing or truncated.
    static func probePNG(_ data: ProbeBytes) throws(ProbeFailure) -> MediaInfo {
        guard data.fourCC(at: 12) == "IHDR", let width = data.u32be(at: 16), let height = data.u32be(at: 20) else {
            throw ProbeFailure("corrupt PNG: missing or truncated IHDR chunk")
        }
        var info = MediaInfo(mediaType: .image, format: "png")
        info.pixelWidth = width == 0 ? nil : Int(width)
        info.pixelHeight = height == 0 ? nil : Int(height)
        var offset = 8
        for _ in 0 ..< 4096 {
            guard let length = data.u32be(at: offset).map(Int.init), let type = data.fourCC(at: offset + 4),
                  data.contains(offset + 8, length)
            else { break }
            if type == "IDAT" || type == "IEND" { break }
            if type == "eXIf" {
                let exif = readExif(exifHeader + data.slice(offset + 8, length))
                info.creationDate = exif?.creationDate
                info.latitude = exif?.latitude
                info.longitude = exif?.longitude
                break
            }
            offset += 12 + length
        }
        return info
    }
}
