import Foundation

/// Generators of small, valid media files for tests: JPEG, PNG, HEIC, MP4, M4A and MP3.
///
/// Every generator is deterministic: the same arguments give the same bytes. The JPEG and PNG are
/// real, decodable pictures (a flat grey image); the ISO media and MP3 files have exactly the
/// structure the probe reads (boxes, frame headers) around placeholder sample data.
///
/// Thread safety: stateless; safe to call from any thread or task concurrently.
public enum MediaFixtures {
    // MARK: JPEG

    /// A valid baseline JPEG of the given size; optional EXIF DateTimeOriginal ("YYYY:MM:DD HH:MM:SS") and GPS;
    /// `variant` makes the bytes unique (e.g. a COM segment) without changing the picture's metadata.
    ///
    /// The picture is flat mid-grey, greyscale, encoded with one-symbol Huffman tables (each 8×8
    /// block is two bits). With a date or GPS the file has an APP1 EXIF segment right after SOI:
    /// a big-endian TIFF header, IFD0 (Orientation when given, pointers to the Exif and GPS IFDs),
    /// an Exif IFD (ExifVersion, DateTimeOriginal, OffsetTimeOriginal when given) and a GPS IFD
    /// (version, latitude/longitude references and degree/minute/second rationals).
    ///
    /// - Parameters:
    ///   - width: Pixels, 1–65535.
    ///   - height: Pixels, 1–65535.
    ///   - exifDate: DateTimeOriginal, `"YYYY:MM:DD HH:MM:SS"`.
    ///   - gps: Signed decimal degrees (south and west negative).
    ///   - variant: When non-zero, a COM segment naming the variant makes the bytes unique.
    ///   - payloadBytes: When larger than the file would be, COM segments of filler bring the file to
    ///     about this many bytes (within 4).
    ///   - orientation: EXIF Orientation (1–8), written only when given.
    ///   - offsetTime: EXIF OffsetTimeOriginal such as `"+02:00"`, written only when given with a date.
    /// - Returns: The file's bytes.
    public static func jpeg(width: Int = 8, height: Int = 8, exifDate: String? = nil,
                            gps: (latitude: Double, longitude: Double)? = nil, variant: Int = 0,
                            payloadBytes: Int = 0, orientation: Int? = nil, offsetTime: String? = nil) -> [UInt8] {
        let width = min(max(width, 1), 65535)
        let height = min(max(height, 1), 65535)
        var head: [UInt8] = [0xFF, 0xD8]
        if exifDate != nil || gps != nil || orientation != nil {
            head += segment(0xE1, Array("Exif".utf8) + [0, 0]
                + exifTIFF(date: exifDate, offsetTime: offsetTime, gps: gps, orientation: orientation))
        }
        if variant != 0 {
            head += segment(0xFE, Array("escrow fixture variant \(variant)".utf8))
        }
        head += segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        head += segment(0xC0, [8] + be16(height) + be16(width) + [1, 1, 0x11, 0])
        head += segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
        head += segment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
        var tail = segment(0xDA, [1, 1, 0x00, 0, 63, 0])
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        let bits = blocks * 2
        tail += [UInt8](repeating: 0, count: bits / 8)
        if bits % 8 != 0 { tail.append(UInt8(0xFF >> (bits % 8))) }
        tail += [0xFF, 0xD9]
        var missing = payloadBytes - head.count - tail.count
        while missing >= 5 {
            let filler = min(missing - 4, 65533)
            head += segment(0xFE, [UInt8](repeating: 0x2E, count: filler))
            missing -= filler + 4
        }
        return head + tail
    }

    // MARK: PNG

    /// A valid 8-bit greyscale PNG of the given size, flat mid-grey.
    ///
    /// The image data is a zlib stream of stored (uncompressed) deflate blocks with its Adler-32;
    /// every chunk has its CRC-32.
    ///
    /// - Parameters:
    ///   - width: Pixels, at least 1.
    ///   - height: Pixels, at least 1.
    ///   - variant: When non-zero, a `tEXt` chunk naming the variant makes the bytes unique.
    /// - Returns: The file's bytes.
    public static func png(width: Int, height: Int, variant: Int = 0) -> [UInt8] {
        let width = max(width, 1)
        let height = max(height, 1)
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += chunk("IHDR", be32(width) + be32(height) + [8, 0, 0, 0, 0])
        if variant != 0 {
            file += chunk("tEXt", Array("Comment".utf8) + [0] + Array("escrow fixture variant \(variant)".utf8))
        }
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for _ in 0 ..< height {
            raw.append(0)
            raw += [UInt8](repeating: 0x80, count: width)
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65535, raw.count - offset)
            let final: UInt8 = offset + length == raw.count ? 1 : 0
            zlib += [final] + le16(length) + le16(length ^ 0xFFFF)
            zlib += raw[offset ..< offset + length]
            offset += length
        } while offset < raw.count
        zlib += be32(Int(adler32(raw)))
        file += chunk("IDAT", zlib)
        file += chunk("IEND", [])
        return file
    }

    // MARK: HEIC

    /// A HEIC file with the structure the probe reads: `ftyp` (heic), `meta` (hdlr, pitm, iinf,
    /// iloc, iprp/ipco with a 160×120 thumbnail `ispe` and the primary's `ispe`, ipma) and `mdat`.
    ///
    /// The coded image data is a placeholder, so the file is not decodable. With a date or GPS an
    /// `Exif` item holds the same EXIF block as `jpeg(…)` writes.
    ///
    /// - Returns: The file's bytes.
    public static func heic(width: Int, height: Int, exifDate: String? = nil,
                            gps: (latitude: Double, longitude: Double)? = nil) -> [UInt8] {
        let ftyp = box("ftyp", Array("heic".utf8) + be32(0) + Array("mif1heic".utf8))
        let exif: [UInt8]? = exifDate != nil || gps != nil
            ? be32(6) + Array("Exif".utf8) + [0, 0] + exifTIFF(date: exifDate, offsetTime: nil, gps: gps, orientation: nil)
            : nil
        let coded = [UInt8](repeating: 0, count: 16)
        func meta(mdatPayload: Int) -> [UInt8] {
            var infe = box("infe", [2, 0, 0, 0] + be16(1) + be16(0) + Array("hvc1".utf8) + [0])
            var iloc: [UInt8] = [0, 0, 0, 0, 0x44, 0x00] + be16(exif == nil ? 1 : 2)
            iloc += be16(1) + be16(0) + be16(1) + be32(mdatPayload) + be32(coded.count)
            if let exif {
                infe += box("infe", [2, 0, 0, 0] + be16(2) + be16(0) + Array("Exif".utf8) + [0])
                iloc += be16(2) + be16(0) + be16(1) + be32(mdatPayload + coded.count) + be32(exif.count)
            }
            let ispeThumb = box("ispe", [0, 0, 0, 0] + be32(160) + be32(120))
            let ispe = box("ispe", [0, 0, 0, 0] + be32(width) + be32(height))
            let ipma = box("ipma", [0, 0, 0, 0] + be32(1) + be16(1) + [1, 0x82])
            let children = box("hdlr", [0, 0, 0, 0] + be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                + box("pitm", [0, 0, 0, 0] + be16(1))
                + box("iinf", [0, 0, 0, 0] + be16(exif == nil ? 1 : 2) + infe)
                + box("iloc", iloc)
                + box("iprp", box("ipco", ispeThumb + ispe) + ipma)
            return box("meta", [0, 0, 0, 0] + children)
        }
        let metaLength = meta(mdatPayload: 0).count
        return ftyp + meta(mdatPayload: ftyp.count + metaLength + 8) + box("mdat", coded + (exif ?? []))
    }

    // MARK: MP4, MOV and M4A

    /// An MP4 (or, with brand `"qt  "`, a MOV) with one video track and one sound track.
    ///
    /// Layout: `ftyp`, `mdat` (placeholder samples), `moov` (`mvhd` with timescale 600, video
    /// `trak` with `tkhd` size and `hdlr` vide, sound `trak` with `hdlr` soun, and `udta/©xyz` when
    /// a location is given).
    ///
    /// - Parameters:
    ///   - durationSeconds: Written as duration/timescale with timescale 600.
    ///   - width: The video track's width in pixels.
    ///   - height: The video track's height in pixels.
    ///   - creation: `mvhd` creation_time (seconds since 1904); `nil` writes 0 ("unknown").
    ///   - brand: The major brand (`"isom"`, `"qt  "`, `"mp42"`…).
    ///   - mvhdVersion: 0 (32-bit times) or 1 (64-bit times).
    ///   - largeSize: Writes `mdat` with a 64-bit `largesize`.
    ///   - location: Written as an ISO 6709 `©xyz` atom in `moov/udta`.
    /// - Returns: The file's bytes.
    public static func mp4(durationSeconds: Double, width: Int, height: Int, creation: Date?,
                           brand: String = "isom", mvhdVersion: Int = 0, largeSize: Bool = false,
                           location: (latitude: Double, longitude: Double)? = nil) -> [UInt8] {
        let created = creation.map { UInt64(max(0, $0.timeIntervalSince1970 + 2_082_844_800)) } ?? 0
        var moov = movieHeader(durationSeconds: durationSeconds, created: created, version: mvhdVersion)
        moov += track(id: 1, handler: "vide", width: width, height: height)
        moov += track(id: 2, handler: "soun", width: 0, height: 0)
        if let location {
            let text = Array(String(format: "%+08.4f%+09.4f/", location.latitude, location.longitude).utf8)
            moov += box("udta", box("©xyz", be16(text.count) + be16(0x15C7) + text))
        }
        let samples = [UInt8](repeating: 0, count: 64)
        let mdat = largeSize ? be32(1) + Array("mdat".utf8) + be64(UInt64(16 + samples.count)) + samples : box("mdat", samples)
        let compatible = brand == "qt  " ? Array("qt  ".utf8) : Array("isomiso2avc1mp41".utf8)
        return box("ftyp", Array(brand.utf8.prefix(4)) + be32(512) + compatible) + mdat + box("moov", moov)
    }

    /// An M4A (brand `M4A `) with one sound track; no creation time.
    ///
    /// - Parameter durationSeconds: Written as duration/timescale with timescale 600.
    /// - Returns: The file's bytes.
    public static func m4a(durationSeconds: Double) -> [UInt8] {
        let moov = movieHeader(durationSeconds: durationSeconds, created: 0, version: 0)
            + track(id: 1, handler: "soun", width: 0, height: 0)
        return box("ftyp", Array("M4A ".utf8) + be32(0) + Array("M4A mp42isom".utf8))
            + box("moov", moov) + box("mdat", [UInt8](repeating: 0, count: 64))
    }

    // MARK: MP3

    /// An MP3 of silent-ish MPEG-1 Layer III frames at 48 kHz stereo (each frame 24 ms, exactly
    /// `3 × bitrateKbps` bytes), after an ID3v2.4 tag.
    ///
    /// - Parameters:
    ///   - durationSeconds: Rounded to whole frames.
    ///   - bitrateKbps: An MPEG-1 Layer III bitrate (32…320); others fall back to 128.
    ///   - vbrFrameCount: When given, the first frame carries a Xing header claiming this many frames.
    ///   - id3: Whether to start with an ID3v2 tag.
    /// - Returns: The file's bytes.
    public static func mp3(durationSeconds: Double, bitrateKbps: Int = 128, vbrFrameCount: Int? = nil,
                           id3: Bool = true) -> [UInt8] {
        let bitrates = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        let index = (bitrates.firstIndex(of: bitrateKbps) ?? 8) + 1
        let kbps = bitrates[index - 1]
        let header: [UInt8] = [0xFF, 0xFB, UInt8(index << 4 | 0x04), 0x00]
        let frameLength = 3 * kbps
        let frame = header + [UInt8](repeating: 0, count: frameLength - 4)
        var file: [UInt8] = []
        if id3 {
            let text = [3] + Array("Escrow fixture".utf8)
            let tit2 = Array("TIT2".utf8) + syncsafe(text.count) + [0, 0] + text
            file += Array("ID3".utf8) + [4, 0, 0] + syncsafe(tit2.count + 16) + tit2 + [UInt8](repeating: 0, count: 16)
        }
        if let vbrFrameCount {
            var xing = frame
            let tag = Array("Xing".utf8) + be32(1) + be32(vbrFrameCount)
            xing.replaceSubrange(36 ..< 36 + tag.count, with: tag)
            file += xing
        }
        let frames = max(1, Int((durationSeconds / 0.024).rounded()))
        for _ in 0 ..< frames { file += frame }
        return file
    }

    // MARK: Building blocks

    /// An ISO base media box: 32-bit size, type, payload.
    public static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(8 + payload.count) + fourCC(type) + payload
    }

    private static func fourCC(_ type: String) -> [UInt8] {
        let scalars = type.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        return Array((scalars + [0x20, 0x20, 0x20, 0x20]).prefix(4))
    }

    private static func movieHeader(durationSeconds: Double, created: UInt64, version: Int) -> [UInt8] {
        let timescale = 600
        let duration = UInt64(max(0, (durationSeconds * Double(timescale)).rounded()))
        var payload: [UInt8]
        if version == 1 {
            payload = [1, 0, 0, 0] + be64(created) + be64(created) + be32(timescale) + be64(duration)
        } else {
            payload = [0, 0, 0, 0] + be32(Int(truncatingIfNeeded: created)) + be32(Int(truncatingIfNeeded: created))
                + be32(timescale) + be32(Int(truncatingIfNeeded: duration))
        }
        payload += be32(0x0001_0000) + be16(0x0100) + [UInt8](repeating: 0, count: 10) + identityMatrix
            + [UInt8](repeating: 0, count: 24) + be32(3)
        return box("mvhd", payload)
    }

    private static func track(id: Int, handler: String, width: Int, height: Int) -> [UInt8] {
        let tkhd = box("tkhd", [0, 0, 0, 3] + be32(0) + be32(0) + be32(id) + be32(0) + be32(0)
            + [UInt8](repeating: 0, count: 8) + be16(0) + be16(0) + be16(handler == "soun" ? 0x0100 : 0) + be16(0)
            + identityMatrix + be32(width << 16) + be32(height << 16))
        let mdhd = box("mdhd", [0, 0, 0, 0] + be32(0) + be32(0) + be32(600) + be32(0) + be16(0x55C4) + be16(0))
        let hdlr = box("hdlr", [0, 0, 0, 0] + be32(0) + fourCC(handler) + [UInt8](repeating: 0, count: 12) + [0])
        return box("trak", tkhd + box("mdia", mdhd + hdlr))
    }

    private static let identityMatrix: [UInt8] =
        be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x4000_0000)

    // MARK: EXIF

    /// A big-endian TIFF block (header, IFD0, Exif IFD, GPS IFD) with the given fields.
    static func exifTIFF(date: String?, offsetTime: String?, gps: (latitude: Double, longitude: Double)?,
                                 orientation: Int?) -> [UInt8] {
        typealias Entry = (tag: Int, type: Int, count: Int, value: [UInt8])
        var exifEntries: [Entry] = [(0x9000, 7, 4, Array("0232".utf8))]
        if let date {
            let text = Array(date.utf8.prefix(19)) + [0]
            exifEntries.append((0x9003, 2, text.count, text))
            if let offsetTime {
                let offset = Array(offsetTime.utf8.prefix(6)) + [0]
                exifEntries.append((0x9011, 2, offset.count, offset))
            }
        }
        var gpsEntries: [Entry] = []
        if let gps {
            gpsEntries = [
                (0x0000, 1, 4, [2, 3, 0, 0]),
                (0x0001, 2, 2, [gps.latitude < 0 ? 0x53 : 0x4E, 0]),
                (0x0002, 5, 3, dms(abs(gps.latitude))),
                (0x0003, 2, 2, [gps.longitude < 0 ? 0x57 : 0x45, 0]),
                (0x0004, 5, 3, dms(abs(gps.longitude))),
            ]
        }
        let ifd0Count = 1 + (gps == nil ? 0 : 1) + (orientation == nil ? 0 : 1)
        let exifStart = 8 + 2 + 12 * ifd0Count + 4
        let exifIFD = ifd(exifEntries, at: exifStart)
        let gpsStart = exifStart + exifIFD.count
        var ifd0Entries: [Entry] = []
        if let orientation { ifd0Entries.append((0x0112, 3, 1, be16(orientation))) }
        ifd0Entries.append((0x8769, 4, 1, be32(exifStart)))
        if gps != nil { ifd0Entries.append((0x8825, 4, 1, be32(gpsStart))) }
        return [0x4D, 0x4D, 0x00, 0x2A] + be32(8) + ifd(ifd0Entries, at: 8) + exifIFD
            + (gps == nil ? [] : ifd(gpsEntries, at: gpsStart))
    }

    /// One IFD at file offset `start`: entries (values of more than 4 bytes placed after the IFD,
    /// word-aligned), then a zero next-IFD offset.
    private static func ifd(_ entries: [(tag: Int, type: Int, count: Int, value: [UInt8])], at start: Int) -> [UInt8] {
        var table = be16(entries.count)
        var data: [UInt8] = []
        let dataStart = start + 2 + 12 * entries.count + 4
        for entry in entries {
            table += be16(entry.tag) + be16(entry.type) + be32(entry.count)
            if entry.value.count <= 4 {
                table += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                table += be32(dataStart + data.count)
                data += entry.value
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return table + be32(0) + data
    }

    /// Degrees, minutes and seconds as three RATIONALs (seconds in 1/10000).
    private static func dms(_ value: Double) -> [UInt8] {
        let degrees = value.rounded(.towardZero)
        let minutes = ((value - degrees) * 60).rounded(.towardZero)
        let seconds = ((value - degrees) * 60 - minutes) * 60
        return be32(Int(degrees)) + be32(1) + be32(Int(minutes)) + be32(1) + be32(Int((seconds * 10000).rounded())) + be32(10000)
    }

    // MARK: Bytes

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(data.count) + typed + be32(Int(crc32(typed)))
    }

    private static func syncsafe(_ value: Int) -> [UInt8] {
        [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)]
    }

    private static func be16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    private static func le16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    private static func be32(_ value: Int) -> [UInt8] {
        (0 ..< 4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    private static func be64(_ value: UInt64) -> [UInt8] {
        (0 ..< 8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0 ..< 8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}
