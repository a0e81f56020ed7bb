extension MediaProbe {
    /// Reads a HEIF/HEIC/AVIF image: pixel size from `meta/iprp/ipco/ispe`, EXIF from the `Exif` item.
    ///
    /// The size is that of the primary item (`pitm`, associated through `ipma`); when the
    /// association cannot be read, the largest `ispe` is used. The size is the stored size:
    /// rotation (`irot`) is not applied. EXIF is read from the first extent of the `Exif` item,
    /// located through `iinf` and `iloc` (construction method 0, file offset, or 1, `idat`).
    ///
    /// - Throws: `ProbeFailure` when there is no `meta` box, or neither a size nor EXIF in it.
    static func probeHEIF(_ data: ProbeBytes, top: [ISOBox]) throws(ProbeFailure) -> MediaInfo {
        guard let meta = top.first(where: { $0.type == "meta" }) else {
            throw ProbeFailure("corrupt HEIF image: no meta box")
        }
        let boxes = data.metaChildren(of: meta)
        var info = MediaInfo(mediaType: .image, format: "heic")
        if let size = primarySize(data, meta: boxes) {
            info.pixelWidth = size.width
            info.pixelHeight = size.height
        }
        let exif = exifItem(data, meta: boxes).flatMap(readExif)
        if let exif {
            info.creationDate = exif.creationDate
            info.latitude = exif.latitude
            info.longitude = exif.longitude
            if info.pixelWidth == nil {
                info.pixelWidth = exif.pixelWidth
                info.pixelHeight = exif.pixelHeight
            }
        }
        guard info.pixelWidth != nil || exif != nil else {
            throw ProbeFailure("corrupt HEIF image: no image size (meta/iprp/ipco/ispe) found")
        }
        return info
    }

    /// The primary item's `ispe`, else the largest `ispe`.
    private static func primarySize(_ data: ProbeBytes, meta: [ISOBox]) -> (width: Int, height: Int)? {
        guard let iprp = meta.first(where: { $0.type == "iprp" }) else { return nil }
        let iprpChildren = data.children(of: iprp)
        guard let ipco = iprpChildren.first(where: { $0.type == "ipco" }) else { return nil }
        let properties = data.children(of: ipco)
        var sizes: [Int: (width: Int, height: Int)] = [:]
        for (index, property) in properties.enumerated() where property.type == "ispe" {
            if let width = data.u32be(at: property.payload + 4), let height = data.u32be(at: property.payload + 8),
               property.payload + 12 <= property.end, width > 0, height > 0 {
                sizes[index + 1] = (Int(width), Int(height))
            }
        }
        if let pitm = meta.first(where: { $0.type == "pitm" }), let primary = itemID(data, box: pitm, at: pitm.payload + 4),
           let ipma = iprpChildren.first(where: { $0.type == "ipma" }),
           let associated = associations(data, ipma: ipma)[primary],
           let index = associated.first(where: { sizes[$0] != nil }), let size = sizes[index] {
            return size
        }
        return sizes.values.max { $0.width * $0.height < $1.width * $1.height }
    }

    /// An item ID at `offset`: 16 bits in version 0 of `box`, 32 bits otherwise.
    private static func itemID(_ data: ProbeBytes, box: ISOBox, at offset: Int) -> Int? {
        guard offset < box.end, let version = data.u8(at: box.payload) else { return nil }
        return version == 0 ? data.u16be(at: offset).map(Int.init) : data.u32be(at: offset).map(Int.init)
    }

    /// `ipma`: item ID → 1-based property indexes. Stops at the first entry that runs past the box.
    private static func associations(_ data: ProbeBytes, ipma: ISOBox) -> [Int: [Int]] {
        guard let version = data.u8(at: ipma.payload), let flags = data.u8(at: ipma.payload + 3),
              let entries = data.u32be(at: ipma.payload + 4) else { return [:] }
        let idSize = version == 0 ? 2 : 4
        let wide = flags & 1 == 1
        var result: [Int: [Int]] = [:]
        var offset = ipma.payload + 8
        for _ in 0 ..< min(Int(entries), 65536) {
            guard offset + idSize + 1 <= ipma.end,
                  let id = (idSize == 2 ? data.u16be(at: offset).map(Int.init) : data.u32be(at: offset).map(Int.init)),
                  let count = data.u8(at: offset + idSize) else { break }
            offset += idSize + 1
            var indexes: [Int] = []
            for _ in 0 ..< Int(count) {
                if wide {
                    guard offset + 2 <= ipma.end, let value = data.u16be(at: offset) else { return result }
                    indexes.append(Int(value & 0x7FFF))
                    offset += 2
                } else {
                    guard offset + 1 <= ipma.end, let value = data.u8(at: offset) else { return result }
                    indexes.append(Int(value & 0x7F))
                    offset += 1
                }
            }
            result[id] = indexes
        }
        return result
    }

    /// The `Exif` item's bytes rewritten as `"Exif\0\0"` + TIFF header, ready for `readExif`.
    private static func exifItem(_ data: ProbeBytes, meta: [ISOBox]) -> [UInt8]? {
        guard let iinf = meta.first(where: { $0.type == "iinf" }), let iloc = meta.first(where: { $0.type == "iloc" }),
              let version = data.u8(at: iinf.payload) else { return nil }
        let entries = data.boxes(from: iinf.payload + (version == 0 ? 6 : 8), to: iinf.end)
        var exifID: Int?
        for infe in entries where infe.type == "infe" {
            guard let infeVersion = data.u8(at: infe.payload), infeVersion >= 2 else { continue }
            let idSize = infeVersion == 2 ? 2 : 4
            let id = idSize == 2 ? data.u16be(at: infe.payload + 4).map(Int.init) : data.u32be(at: infe.payload + 4).map(Int.init)
            if data.fourCC(at: infe.payload + 4 + idSize + 2) == "Exif", infe.payload + 8 + idSize + 2 <= infe.end {
                exifID = id
                break
            }
        }
        guard let exifID, let extent = location(of: exifID, data, iloc: iloc, idat: meta.first { $0.type == "idat" }),
              let tiffOffset = data.u32be(at: extent.offset).map(Int.init) else { return nil }
        let tiffStart = extent.offset + 4 + tiffOffset
        let tiffLength = extent.length - 4 - tiffOffset
        guard tiffOffset <= extent.length - 4, data.contains(tiffStart, tiffLength) else { return nil }
        return exifHeader + data.slice(tiffStart, tiffLength)
    }

    /// The first extent of `item` in `iloc`, as an absolute offset and length inside the buffer.
    private static func location(of item: Int, _ data: ProbeBytes, iloc: ISOBox, idat: ISOBox?) -> (offset: Int, length: Int)? {
        guard let version = data.u8(at: iloc.payload), version <= 2,
              let sizes = data.u8(at: iloc.payload + 4), let more = data.u8(at: iloc.payload + 5) else { return nil }
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0xF), baseSize = Int(more >> 4)
        let indexSize = version == 0 ? 0 : Int(more & 0xF)
        var offset = iloc.payload + 6
        guard let itemCount = (version < 2 ? data.u16be(at: offset).map(Int.init) : data.u32be(at: offset).map(Int.init)) else { return nil }
        offset += version < 2 ? 2 : 4
        for _ in 0 ..< min(itemCount, 65536) {
            guard offset < iloc.end,
                  let id = (version < 2 ? data.u16be(at: offset).map(Int.init) : data.u32be(at: offset).map(Int.init)) else { return nil }
            offset += version < 2 ? 2 : 4
            var method = 0
            if version > 0 {
                guard let field = data.u16be(at: offset) else { return nil }
                method = Int(field & 0xF)
                offset += 2
            }
            offset += 2
            guard let base = data.uintBE(at: offset, size: baseSize) else { return nil }
            offset += baseSize
            guard let extentCount = data.u16be(at: offset).map(Int.init) else { return nil }
            offset += 2
            var first: (offset: UInt64, length: UInt64)?
            for _ in 0 ..< extentCount {
                offset += indexSize
                guard let extentOffset = data.uintBE(at: offset, size: offsetSize),
                      let extentLength = data.uintBE(at: offset + offsetSize, size: lengthSize) else { return nil }
                offset += offsetSize + lengthSize
                if first == nil { first = (extentOffset, extentLength) }
            }
            guard id == item else { continue }
            guard let first, method == 0 || (method == 1 && idat != nil) else { return nil }
            let origin = method == 1 ? UInt64(idat?.payload ?? 0) : 0
            let (start, overflow) = origin.addingReportingOverflow(base)
            let (absolute, overflow2) = start.addingReportingOverflow(first.offset)
            guard !overflow, !overflow2, absolute < UInt64(data.count), first.length <= UInt64(data.count) else { return nil }
            let length = first.length == 0 ? data.count - Int(absolute) : Int(first.length)
            return (Int(absolute), length)
        }
        return nil
    }
}
