extension MediaProbe {
    /// Reads a JPEG: pixel size from the first SOFn marker, EXIF from the first `Exif` APP1 segment.
    ///
    /// Segments are walked by their length fields up to the start of scan; fill bytes (repeated
    /// `0xFF`) before a marker and the stand-alone markers (RSTn, TEM) are skipped. EXIF Orientation
    /// 5–8 swaps width and height so the size is that of the picture as displayed.
    ///
    /// - Throws: `ProbeFailure` when neither a frame header nor EXIF can be read.
    static func probeJPEG(_ data: ProbeBytes) throws(ProbeFailure) -> MediaInfo {
        var info = MediaInfo(mediaType: .image, format: "jpeg")
        var exif: ExifSummary?
        var frameFound = false
        var problem: String?
        var offset = 2
        scan: while offset < data.count {
            guard data.u8(at: offset) == 0xFF else {
                problem = "expected a marker at byte \(offset)"
                break
            }
            while data.u8(at: offset) == 0xFF { offset += 1 }
            guard let marker = data.u8(at: offset) else {
                problem = "truncated at a marker"
                break
            }
            offset += 1
            switch marker {
            case 0xD9, 0xDA:
                break scan
            case 0x01, 0xD0 ... 0xD7:
                continue scan
            case 0x00, 0xD8:
                problem = "invalid marker byte \(marker) at byte \(offset - 1)"
                break scan
            default:
                break
            }
            guard let length = data.u16be(at: offset).map(Int.init), length >= 2 else {
                problem = "truncated or invalid segment length at byte \(offset)"
                break
            }
            let payload = offset + 2
            let payloadLength = length - 2
            if isStartOfFrame(marker) {
                guard let height = data.u16be(at: payload + 1), let width = data.u16be(at: payload + 3) else {
                    problem = "truncated frame header"
                    break
                }
                info.pixelWidth = width == 0 ? nil : Int(width)
                info.pixelHeight = height == 0 ? nil : Int(height)
                frameFound = true
            } else if marker == 0xE1, exif == nil, data.slice(payload, 6).elementsEqual(exifHeader),
                      data.contains(payload, payloadLength) {
                exif = readExif(Array(data.slice(payload, payloadLength)))
            }
            guard data.contains(payload, payloadLength) else {
                if !frameFound { problem = "segment at byte \(offset - 2) runs past the end of the file" }
                break
            }
            offset = payload + payloadLength
        }
        guard frameFound || exif != nil else {
            throw ProbeFailure("corrupt JPEG: no frame header (SOFn) found" + (problem.map { "; \($0)" } ?? ""))
        }
        if let exif {
            info.creationDate = exif.creationDate
            info.latitude = exif.latitude
            info.longitude = exif.longitude
            if info.pixelWidth == nil || info.pixelHeight == nil {
                info.pixelWidth = exif.pixelWidth
                info.pixelHeight = exif.pixelHeight
            }
            if let orientation = exif.orientation, (5...8).contains(orientation) {
                swap(&info.pixelWidth, &info.pixelHeight)
            }
        }
        return info
    }

    /// `"Exif\0\0"`, the identifier that starts an EXIF APP1 segment.
    static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

    /// SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    private static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0 ... 0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }
}
