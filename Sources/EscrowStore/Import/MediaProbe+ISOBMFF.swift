/// One ISO base media file format box: its type and where its payload lies in the file.
struct ISOBox: Sendable, Equatable {
    /// The four-character type, e.g. `moov`, `©xyz`.
    let type: String
    /// Offset of the first byte after the box header (size, type and any `largesize`).
    let payload: Int
    /// Offset just past the box, clamped to the enclosing box and the buffer.
    let end: Int
    /// Whether the box's declared size ran past its parent or the end of the file.
    let truncated: Bool
}

extension ProbeBytes {
    /// The boxes directly inside `start ..< end`, in order, at most `limit` of them.
    ///
    /// Handles 32-bit sizes, 64-bit `largesize` (size 1) and size 0 ("to the end of the parent").
    /// A box whose size runs past the parent is clamped and ends the walk; a size smaller than its
    /// own header ends the walk. Every step advances by at least 8 bytes, so the walk is bounded.
    func boxes(from start: Int, to end: Int, limit: Int = 4096) -> [ISOBox] {
        let end = min(end, count)
        var result: [ISOBox] = []
        var offset = start
        while offset >= 0, end - offset >= 8, result.count < limit {
            guard let size32 = u32be(at: offset), let type = fourCC(at: offset + 4) else { break }
            var header = 8
            var size: UInt64 = UInt64(size32)
            if size32 == 1 {
                guard let large = u64be(at: offset + 8) else { break }
                header = 16
                size = large
            } else if size32 == 0 {
                size = UInt64(end - offset)
            }
            guard size >= UInt64(header) else { break }
            let available = UInt64(end - offset)
            let truncated = size > available
            let boxEnd = truncated ? end : offset + Int(size)
            result.append(ISOBox(type: type, payload: min(offset + header, boxEnd), end: boxEnd, truncated: truncated))
            if truncated { break }
            offset = boxEnd
        }
        return result
    }

    /// The boxes directly inside `box`; `fullBox` skips the version and flags first.
    func children(of box: ISOBox, fullBox: Bool = false) -> [ISOBox] {
        boxes(from: box.payload + (fullBox ? 4 : 0), to: box.end)
    }

    /// The first box of `type` directly inside `box`.
    func child(_ type: String, of box: ISOBox, fullBox: Bool = false) -> ISOBox? {
        children(of: box, fullBox: fullBox).first { $0.type == type }
    }

    /// The boxes inside a `meta` box, which is a full box in ISO files but a plain container in
    /// some QuickTime files (recognised by a `hdlr` box starting right after the header).
    func metaChildren(of meta: ISOBox) -> [ISOBox] {
        children(of: meta, fullBox: fourCC(at: meta.payload + 4) != "hdlr")
    }
}

extension MediaProbe {
    /// Brands of still images in the ISO base media file format (HEIF, HEIC, AVIF).
    static let imageBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "mif2", "msf1", "avif", "avis"]

    /// Brands of ISO BMFF files that are not supported media even though they may hold a `moov`
    /// (Canon CR3 raw photos).
    static let unsupportedBrands: Set<String> = ["crx "]

    /// Reads an ISO base media file (`ftyp` first): HEIF images, or MP4/MOV/M4A movies and audio.
    ///
    /// The major brand decides between image and movie; a file whose brand is not an image brand
    /// is read as a movie from its `moov` box.
    ///
    /// - Returns: `nil` for brands listed in `unsupportedBrands`.
    /// - Throws: `ProbeFailure` when the boxes the format needs are missing.
    static func probeISOBMFF(_ data: ProbeBytes) throws(ProbeFailure) -> MediaInfo? {
        let top = data.boxes(from: 0, to: data.count)
        guard let ftyp = top.first, ftyp.type == "ftyp", let major = data.fourCC(at: ftyp.payload) else {
            throw ProbeFailure("corrupt ISO media file: truncated ftyp box")
        }
        var compatible: [String] = []
        var offset = ftyp.payload + 8
        while offset + 4 <= ftyp.end, let brand = data.fourCC(at: offset) {
            compatible.append(brand)
            offset += 4
        }
        if unsupportedBrands.contains(major) { return nil }
        let moov = top.first { $0.type == "moov" }
        let isImage = imageBrands.contains(major)
            || (moov == nil && !imageBrands.isDisjoint(with: compatible) && top.contains { $0.type == "meta" })
        if isImage { return try probeHEIF(data, top: top) }
        guard let moov else {
            throw ProbeFailure("corrupt \(major.trimmingSpaces) file: no moov box (truncated?)")
        }
        return try probeMovie(data, moov: moov, major: major, compatible: compatible)
    }
}

fileprivate extension String {
    /// The string without trailing spaces (brands such as `"qt  "` in messages).
    var trimmingSpaces: String {
        String(self.reversed().drop { $0 == " " }.reversed())
    }
}
