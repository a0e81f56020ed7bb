extension MediaProbe {
    /// How far past an ID3v2 tag to look for the first MPEG audio frame (padding, junk).
    static let mp3SyncSearchWindow = 65536

    /// Reads an MP3: an optional ID3v2 tag, then the first MPEG-1/2/2.5 Layer III frame.
    ///
    /// The duration comes from a Xing/Info or VBRI header in the first frame when present (frame
    /// count × samples per frame ÷ sample rate), else it is estimated as for constant bitrate:
    /// audio bytes × 8 ÷ bitrate, excluding an ID3v1 tag at the end. Without an ID3v2 tag the
    /// frame must start the file and, when the file is long enough, be followed by a second valid
    /// frame header; this keeps arbitrary binary files from passing as MP3.
    ///
    /// - Returns: `nil` when the file is not MP3, including an ID3v2 tag followed by no Layer III frame
    ///   (an ID3 tag alone does not say the file is MP3: AAC and other formats use it too).
    /// - Throws: `ProbeFailure` when the ID3v2 tag's size is malformed or runs past the end of the file.
    static func probeMP3(_ data: ProbeBytes) throws(ProbeFailure) -> MediaInfo? {
        var start = 0
        var tagged = false
        while data.slice(start, 3).elementsEqual([0x49, 0x44, 0x33]) {
            guard let flags = data.u8(at: start + 5), data.contains(start, 10) else {
                throw ProbeFailure("corrupt MP3: truncated ID3v2 tag header")
            }
            let sizeBytes = data.slice(start + 6, 4)
            guard sizeBytes.allSatisfy({ $0 < 0x80 }) else {
                throw ProbeFailure("corrupt MP3: ID3v2 tag size is not syncsafe")
            }
            let size = sizeBytes.reduce(0) { $0 << 7 | Int($1) } + 10 + (flags & 0x10 != 0 ? 10 : 0)
            guard data.contains(start, size) else {
                throw ProbeFailure("corrupt MP3: ID3v2 tag declares \(size) bytes but the file has \(data.count - start) after it starts")
            }
            start += size
            tagged = true
        }
        let frameStart: Int
        let header: MPEGFrameHeader
        if tagged {
            var found: (Int, MPEGFrameHeader)?
            var offset = start
            while offset < min(data.count, start + mp3SyncSearchWindow) {
                if data.u8(at: offset) == 0xFF, let candidate = MPEGFrameHeader(data, at: offset) {
                    found = (offset, candidate)
                    break
                }
                offset += 1
            }
            guard let found else { return nil }
            (frameStart, header) = found
        } else {
            guard let candidate = MPEGFrameHeader(data, at: 0) else { return nil }
            let next = candidate.frameLength
            if data.contains(next, 4), MPEGFrameHeader(data, at: next) == nil { return nil }
            (frameStart, header) = (0, candidate)
        }
        var info = MediaInfo(mediaType: .audio, format: "mp3")
        if let frames = vbrFrameCount(data, frameStart: frameStart, header: header) {
            info.duration = Double(frames) * Double(header.samplesPerFrame) / Double(header.sampleRate)
        } else {
            var end = data.count
            if end - frameStart >= 128, data.slice(end - 128, 3).elementsEqual([0x54, 0x41, 0x47]) { end -= 128 }
            info.duration = Double(end - frameStart) * 8 / Double(header.bitrate)
        }
        return info
    }

    /// The frame count of a Xing/Info or VBRI header in the frame at `frameStart`, if any.
    private static func vbrFrameCount(_ data: ProbeBytes, frameStart: Int, header: MPEGFrameHeader) -> Int? {
        let xing = frameStart + 4 + header.sideInfoLength
        if let tag = data.fourCC(at: xing), tag == "Xing" || tag == "Info",
           let flags = data.u32be(at: xing + 4), flags & 1 == 1, let frames = data.u32be(at: xing + 8), frames > 0 {
            return Int(frames)
        }
        let vbri = frameStart + 36
        if data.fourCC(at: vbri) == "VBRI", let frames = data.u32be(at: vbri + 14), frames > 0 {
            return Int(frames)
        }
        return nil
    }
}

/// The 4-byte header of an MPEG audio Layer III frame.
///
/// Thread safety: an immutable value.
struct MPEGFrameHeader: Sendable, Equatable {
    /// Bits per second.
    let bitrate: Int
    /// Samples per second.
    let sampleRate: Int
    /// 1152 for MPEG-1, 576 for MPEG-2 and 2.5.
    let samplesPerFrame: Int
    /// Bytes of side information after the header (where a Xing/Info header follows).
    let sideInfoLength: Int
    /// Bytes in the whole frame, header included.
    let frameLength: Int

    private static let bitratesV1: [Int] = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    private static let bitratesV2: [Int] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
    private static let sampleRatesV1: [Int] = [44100, 48000, 32000]

    /// Decodes the header at `offset`; `nil` unless it is a valid Layer III header with a known
    /// bitrate (not "free") and sample rate.
    init?(_ data: ProbeBytes, at offset: Int) {
        guard let word = data.u32be(at: offset), word >> 21 == 0x7FF else { return nil }
        let version = Int(word >> 19 & 3)
        let layer = word >> 17 & 3
        let bitrateIndex = Int(word >> 12 & 0xF)
        let rateIndex = Int(word >> 10 & 3)
        let padding = Int(word >> 9 & 1)
        let mono = word >> 6 & 3 == 3
        guard version != 1, layer == 1, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let isV1 = version == 3
        bitrate = (isV1 ? Self.bitratesV1 : Self.bitratesV2)[bitrateIndex] * 1000
        sampleRate = Self.sampleRatesV1[rateIndex] / (isV1 ? 1 : (version == 2 ? 2 : 4))
        samplesPerFrame = isV1 ? 1152 : 576
        sideInfoLength = isV1 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        frameLength = samplesPerFrame / 8 * bitrate / sampleRate + padding
    }
}
