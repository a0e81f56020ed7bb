extension MediaProbe {
    /// Seconds from 1904-01-01 (the QuickTime/ISO epoch) to 1970-01-01, both UTC.
    static let secondsFrom1904To1970: UInt64 = 2_082_844_800

    /// Brands of audio-only MPEG-4 files (iTunes audio, audiobooks, protected audio).
    static let audioBrands: Set<String> = ["M4A ", "M4B ", "M4P "]

    /// Reads an MP4, MOV or M4A file from its `moov` box.
    ///
    /// Duration and creation time come from `mvhd` (versions 0 and 1; a creation time of 0 means
    /// unknown), the pixel size from the `tkhd` of the first track whose `mdia/hdlr` handler is
    /// `vide` (rotation in the track matrix is not applied), and the location from a `©xyz` atom
    /// in `moov/udta` (not from `moov/meta` keys). A file with a video track is video;
    /// otherwise a file with sound tracks or an audio brand is audio.
    ///
    /// - Throws: `ProbeFailure` when `moov` holds neither `mvhd` nor any `trak`.
    static func probeMovie(_ data: ProbeBytes, moov: ISOBox, major: String, compatible: [String]) throws(ProbeFailure) -> MediaInfo {
        let boxes = data.children(of: moov)
        let mvhd = boxes.first { $0.type == "mvhd" }
        let tracks = boxes.filter { $0.type == "trak" }
        guard mvhd != nil || !tracks.isEmpty else {
            throw ProbeFailure("corrupt \(major == "qt  " ? "QuickTime" : "MPEG-4") file: moov box has no mvhd or trak")
        }
        var size: (width: Int, height: Int)?
        var hasVideo = false
        var hasSound = false
        for trak in tracks {
            let trakBoxes = data.children(of: trak)
            let handler = trakBoxes.first { $0.type == "mdia" }
                .flatMap { data.child("hdlr", of: $0) }
                .flatMap { data.fourCC(at: $0.payload + 8) }
            if handler == "soun" { hasSound = true }
            guard handler == "vide" else { continue }
            hasVideo = true
            if size == nil, let tkhd = trakBoxes.first(where: { $0.type == "tkhd" }) {
                size = trackSize(data, tkhd: tkhd)
            }
        }
        let isAudio = !hasVideo && (hasSound || audioBrands.contains(major))
        let format = major == "qt  " ? "mov"
            : (isAudio && (audioBrands.contains(major) || !audioBrands.isDisjoint(with: compatible)) ? "m4a" : "mp4")
        var info = MediaInfo(mediaType: isAudio ? .audio : .video, format: format)
        if let size {
            info.pixelWidth = size.width
            info.pixelHeight = size.height
        }
        if let mvhd {
            (info.duration, info.creationDate) = movieHeader(data, mvhd: mvhd)
        }
        if let udta = boxes.first(where: { $0.type == "udta" }), let xyz = data.child("©xyz", of: udta),
           let length = data.u16be(at: xyz.payload).map(Int.init), xyz.payload + 4 + length <= xyz.end,
           let location = ISO6709.coordinate(String(decoding: data.slice(xyz.payload + 4, length), as: UTF8.self)) {
            info.latitude = location.latitude
            info.longitude = location.longitude
        }
        return info
    }

    /// `mvhd` → (duration in seconds, creation date in seconds since 1970); `nil` where unknown.
    private static func movieHeader(_ data: ProbeBytes, mvhd: ISOBox) -> (Double?, Double?) {
        guard let version = data.u8(at: mvhd.payload) else { return (nil, nil) }
        let creation: UInt64?
        let timescale: UInt32?
        let duration: UInt64?
        let unknownDuration: UInt64
        if version == 1 {
            guard mvhd.payload + 32 <= mvhd.end else { return (nil, nil) }
            creation = data.u64be(at: mvhd.payload + 4)
            timescale = data.u32be(at: mvhd.payload + 20)
            duration = data.u64be(at: mvhd.payload + 24)
            unknownDuration = UInt64.max
        } else {
            guard mvhd.payload + 20 <= mvhd.end else { return (nil, nil) }
            creation = data.u32be(at: mvhd.payload + 4).map(UInt64.init)
            timescale = data.u32be(at: mvhd.payload + 12)
            duration = data.u32be(at: mvhd.payload + 16).map(UInt64.init)
            unknownDuration = UInt64(UInt32.max)
        }
        var seconds: Double?
        if let timescale, timescale > 0, let duration, duration != unknownDuration {
            seconds = Double(duration) / Double(timescale)
        }
        var date: Double?
        if let creation, creation != 0 {
            date = Double(creation) - Double(secondsFrom1904To1970)
        }
        return (seconds, date)
    }

    /// `tkhd` width and height (16.16 fixed point), rounded; `nil` when zero or truncated.
    private static func trackSize(_ data: ProbeBytes, tkhd: ISOBox) -> (width: Int, height: Int)? {
        guard let version = data.u8(at: tkhd.payload) else { return nil }
        let offset = tkhd.payload + (version == 1 ? 88 : 76)
        guard offset + 8 <= tkhd.end, let width = data.u32be(at: offset), let height = data.u32be(at: offset + 4),
              width >= 0x8000, height >= 0x8000 else { return nil }
        return (Int((width + 0x8000) >> 16), Int((height + 0x8000) >> 16))
    }
}

/// Parses ISO 6709 location strings as QuickTime writes them (`"+48.8577+002.2950+035.000/"`).
enum ISO6709 {
    /// The latitude and longitude of an ISO 6709 string, in decimal degrees.
    ///
    /// Accepts degrees (`±DD.D±DDD.D`), degrees and minutes (`±DDMM.M±DDDMM.M`) and degrees, minutes
    /// and seconds (`±DDMMSS.S±DDDMMSS.S`); altitude and the CRS suffix are ignored.
    ///
    /// - Returns: `nil` when the string is malformed or out of range.
    static func coordinate(_ text: String) -> (latitude: Double, longitude: Double)? {
        var parts: [String] = []
        for character in text {
            if character == "+" || character == "-" {
                parts.append(String(character))
            } else if character == "/" {
                break
            } else if character.isASCII, character.isNumber || character == ".", !parts.isEmpty {
                parts[parts.count - 1].append(character)
            } else {
                return nil
            }
        }
        guard parts.count >= 2, let latitude = degrees(parts[0], degreeDigits: 2),
              let longitude = degrees(parts[1], degreeDigits: 3),
              abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        return (latitude, longitude)
    }

    private static func degrees(_ part: String, degreeDigits: Int) -> Double? {
        let sign: Double = part.hasPrefix("-") ? -1 : 1
        let number = part.dropFirst()
        let integerDigits = number.prefix { $0 != "." }.count
        guard let value = Double(number), value.isFinite else { return nil }
        switch integerDigits - degreeDigits {
        case ...0:
            return sign * value
        case 2:
            let degrees = (value / 100).rounded(.towardZero)
            return sign * (degrees + (value - degrees * 100) / 60)
        case 4:
            let degrees = (value / 10000).rounded(.towardZero)
            let minutes = ((value - degrees * 10000) / 100).rounded(.towardZero)
            return sign * (degrees + minutes / 60 + (value - degrees * 10000 - minutes * 100) / 3600)
        default:
            return nil
        }
    }
}
