#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes from a photo file every piece of metadata that can say where the photo was taken, so
/// that a dataflow approved with a location accuracy below exact does not read the exact position
/// out of `Photos.asset` bytes.
///
/// The format is decided from the file's magic numbers, never from a name. Two formats are
/// supported, and both are walked end to end by their own structure; whole segments or chunks are
/// kept or dropped, so the pixels and every kept checksum stay valid.
///
/// **JPEG** (`FF D8`): the marker segments are walked through every scan to the end-of-image
/// marker (EOI). Segments are kept by an allow-list, because vendors put positions in many
/// application segments, not only in EXIF:
/// - kept: APP0 `JFIF` (pixel density, at most a thumbnail of raw pixels), APP2 `ICC_PROFILE`
///   (colours only), APP14 `Adobe` (the colour transform a decoder needs), and every coding
///   segment (SOFn, DHT, DAC, DQT, DRI, DNL, SOS, the JPEG extension markers) with its fill bytes,
///   and RSTn/TEM markers, as they were;
/// - dropped: APP1 (EXIF with its GPS IFD, XMP and extended XMP), APP13 (Photoshop IRB/IPTC,
///   which holds place names), APP3–APP12 and APP15 (vendor data: GoPro's APP6 GPMF carries a GPS
///   track, APP11 holds JUMBF/C2PA manifests that can record a location), APP2 other than ICC
///   (MPF's index of images that are dropped anyway, FlashPix), APP0 other than JFIF (JFXX can
///   hold a whole JPEG thumbnail with its own EXIF), APP14 other than Adobe, and COM: free text a
///   camera or an editor wrote, which can name a place; no decoder needs it, so dropping it is
///   the safe choice;
/// - dropped: everything after EOI. Phones append whole files there (a Multi-Picture Format
///   secondary image with its own EXIF, a gain map, a motion photo's MP4, vendor trailers).
///
/// The one thing kept from EXIF is the Orientation tag (values 2–8): without it a rotated photo
/// would decode sideways. When the first EXIF segment before the image data has one, a new,
/// minimal EXIF segment holding only that tag takes the original's place.
///
/// **PNG** (`89 50 4E 47 0D 0A 1A 0A`): chunks are walked by their lengths to IEND, and kept by
/// an allow-list of chunks that hold pixels, colour and layout: IHDR, PLTE, IDAT, IEND, tRNS,
/// cHRM, gAMA, iCCP, sBIT, sRGB, cICP, mDCV, cLLI, bKGD, hIST, pHYs, sPLT, tIME and the APNG
/// chunks acTL, fcTL, fdAT. Everything else is dropped: eXIf, tEXt, zTXt and iTXt (XMP lives in
/// iTXt `XML:com.adobe.xmp`), the pre-standard `exIf`/`zxIf` chunks older ImageMagick wrote,
/// C2PA's `caBX` and any private chunk. Data after IEND is dropped: it can hide anything.
///
/// A truncated or malformed file throws rather than return a file that was not walked to its end.
/// Every length is checked against the file before it is used; the work is one pass over the
/// bytes (the image data is searched for markers with `memchr`) into one output buffer.
///
/// Thread safety: stateless; safe to call from any thread or task concurrently.
enum LocationMetadata {
    /// The file without any metadata that can carry a location.
    ///
    /// - Parameter bytes: A whole photo file.
    /// - Returns: A JPEG or PNG holding the same pictures, without location-bearing metadata.
    ///   A file that had none of it comes back byte-identical.
    /// - Throws: `LocationMetadataError.unsupportedFormat` for anything but JPEG and PNG (naming
    ///   the format when the magic numbers tell it), `.malformedJPEG`/`.malformedPNG` (with the
    ///   byte offset of the fault) for a truncated or malformed file.
    static func strip(_ bytes: [UInt8]) throws(LocationMetadataError) -> [UInt8] {
        if bytes.starts(with: JPEGStripper.startOfImage) {
            var stripper = JPEGStripper(bytes)
            return try stripper.run()
        }
        if bytes.starts(with: PNGStripper.signature) {
            return try PNGStripper.run(bytes)
        }
        throw .unsupportedFormat(formatName(of: bytes))
    }

    /// The name of a format other than JPEG and PNG, from its magic numbers;
    /// `LocationMetadataError.unknownFormat` when they are not recognised.
    static func formatName(of bytes: [UInt8]) -> String {
        func matches(_ text: String, at offset: Int) -> Bool {
            let expected = Array(text.utf8)
            return bytes.count >= offset + expected.count && bytes[offset ..< offset + expected.count].elementsEqual(expected)
        }
        if matches("ftyp", at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8 ..< 12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1": return "HEIC"
            case "avif", "avis": return "AVIF"
            case "qt  ": return "MOV"
            case "M4A ", "M4B ", "M4P ": return "M4A"
            case "crx ": return "CR3"
            default: return brand.hasPrefix("3g") ? "3GP" : "MP4"
            }
        }
        if matches("GIF87a", at: 0) || matches("GIF89a", at: 0) { return "GIF" }
        if matches("RIFF", at: 0) {
            if matches("WEBP", at: 8) { return "WebP" }
            if matches("AVI ", at: 8) { return "AVI" }
            if matches("WAVE", at: 8) { return "WAV" }
        }
        if matches("ID3", at: 0) { return "MP3" }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 {
            // MPEG audio frame sync; the layer bits tell MP3 (layer III) from AAC's ADTS (00).
            switch (bytes[1] >> 1) & 0x03 {
            case 0x01: return "MP3"
            case 0x00: return "AAC"
            default: return "MPEG audio"
            }
        }
        if matches("II*\0", at: 0) || matches("MM\0*", at: 0) { return "TIFF" }
        if bytes.starts(with: [0xFF, 0x0A]) || matches("JXL ", at: 4) { return "JPEG XL" }
        if matches("jP  ", at: 4) { return "JPEG 2000" }
        return LocationMetadataError.unknownFormat
    }
}

/// Why `LocationMetadata.strip` returned no file: the format is not one the escrow can strip, or
/// the file is damaged. Each description says what happened, where, and what to do.
enum LocationMetadataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a JPEG or PNG: the format's name ("HEIC", "MP4", "GIF"…), or `unknownFormat`.
    case unsupportedFormat(String)
    /// A JPEG that could not be walked to its end: the byte offset of the fault and what it is.
    case malformedJPEG(offset: Int, JPEGDefect)
    /// A PNG that could not be walked to its end: the byte offset of the chunk and what is wrong.
    case malformedPNG(offset: Int, PNGDefect)

    /// The name `unsupportedFormat` carries when the magic numbers are not recognised.
    static let unknownFormat = "unknown"

    /// What is wrong at a JPEG's offset.
    enum JPEGDefect: Sendable, Equatable {
        /// A byte other than `0xFF` where a marker must start.
        case expectedMarker(found: UInt8)
        /// A marker code that is not valid here (`0x00`, a second SOI, a reserved code).
        case invalidMarker(UInt8)
        /// The file ends inside a run of `0xFF` bytes before a marker code.
        case truncatedMarker
        /// A segment length below 2 (the length counts its own two bytes).
        case invalidLength(Int)
        /// The segment's length (or its length field) runs past the end of the file.
        case segmentPastEnd
        /// The file ends, or has EOI, before any image data (no SOS).
        case noStartOfScan
        /// The image data runs to the end of the file without EOI.
        case noEndOfImage
    }

    /// What is wrong with a PNG's chunk.
    enum PNGDefect: Sendable, Equatable {
        /// The file ends inside the chunk's length and type.
        case chunkHeaderPastEnd
        /// A length over 2³¹ − 1, the most PNG allows.
        case chunkTooLong(UInt32)
        /// A type that is not four ASCII letters.
        case invalidChunkType
        /// The chunk's data and CRC run past the end of the file.
        case chunkPastEnd
        /// The file ends without an IEND chunk.
        case noEnd
    }

    var description: String {
        switch self {
        case .unsupportedFormat(let format):
            let cause = format == Self.unknownFormat
                ? "the escrow does not recognise this photo's file format, so it cannot remove the location its metadata may carry"
                : "the escrow cannot remove the location that the metadata of \(format) files may carry"
            return cause + "; under a location accuracy below exact this photo cannot be read. "
                + "Approve the flow with exact location, or convert the photos to JPEG or PNG before importing them"
        case .malformedJPEG(let offset, let defect):
            return Self.explain(defect, at: offset) + "; " + Self.damagedAdvice
        case .malformedPNG(let offset, let defect):
            return Self.explain(defect, at: offset) + "; " + Self.damagedAdvice
        }
    }

    private static let damagedAdvice = "the escrow removes location metadata only from files it can walk to their end, "
        + "so under a location accuracy below exact this photo cannot be read. Import an undamaged copy of the photo, "
        + "or approve the flow with exact location"

    private static func explain(_ defect: JPEGDefect, at offset: Int) -> String {
        switch defect {
        case .expectedMarker(let found):
            "the JPEG has byte \(hex(found)) at byte \(offset) where a marker (0xFF) must start"
        case .invalidMarker(let code):
            "the JPEG has an invalid marker 0xFF\(hex(code).dropFirst(2)) at byte \(offset)"
        case .truncatedMarker:
            "the JPEG ends inside the marker at byte \(offset)"
        case .invalidLength(let length):
            "the JPEG's segment at byte \(offset) declares a length of \(length) (at least 2)"
        case .segmentPastEnd:
            "the JPEG's segment at byte \(offset) runs past the end of the file"
        case .noStartOfScan:
            "the JPEG ends at byte \(offset) before any image data (no start-of-scan marker)"
        case .noEndOfImage:
            "the JPEG's image data from byte \(offset) runs to the end of the file without an end-of-image marker "
                + "(the file is truncated)"
        }
    }

    private static func explain(_ defect: PNGDefect, at offset: Int) -> String {
        switch defect {
        case .chunkHeaderPastEnd:
            "the PNG ends inside the chunk header at byte \(offset)"
        case .chunkTooLong(let length):
            "the PNG's chunk at byte \(offset) declares \(length) bytes, more than PNG allows (2147483647)"
        case .invalidChunkType:
            "the PNG's chunk at byte \(offset) has a type that is not four ASCII letters"
        case .chunkPastEnd:
            "the PNG's chunk at byte \(offset) runs past the end of the file"
        case .noEnd:
            "the PNG ends at byte \(offset) without an IEND chunk (the file is truncated)"
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }
}

/// One walk over a JPEG's segments and scans, copying what is kept into `output`.
private struct JPEGStripper {
    static let startOfImage: [UInt8] = [0xFF, 0xD8]

    /// What happens to one marker segment.
    private enum Disposition {
        case keep
        case drop
        /// An EXIF segment: dropped, its Orientation written again in a minimal EXIF segment.
        case keepOrientation
    }

    private let bytes: [UInt8]
    private var output: [UInt8] = []
    private var offset = JPEGStripper.startOfImage.count
    private var sawScan = false
    private var wroteOrientation = false

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        output.reserveCapacity(bytes.count)
        output.append(contentsOf: Self.startOfImage)
    }

    mutating func run() throws(LocationMetadataError) -> [UInt8] {
        var inScan = false
        while true {
            if inScan {
                try copyScanData()
                inScan = false
            }
            guard offset < bytes.count else {
                throw .malformedJPEG(offset: offset, sawScan ? .noEndOfImage : .noStartOfScan)
            }
            let start = offset
            guard bytes[offset] == 0xFF else {
                throw .malformedJPEG(offset: offset, .expectedMarker(found: bytes[offset]))
            }
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { throw .malformedJPEG(offset: start, .truncatedMarker) }
            let marker = bytes[offset]
            let markerOffset = offset - 1
            offset += 1
            switch marker {
            case 0xD9:
                guard sawScan else { throw .malformedJPEG(offset: markerOffset, .noStartOfScan) }
                output.append(contentsOf: bytes[start ..< offset])
                return output
            case 0x01, 0xD0 ... 0xD7:
                output.append(contentsOf: bytes[start ..< offset])
                continue
            case 0x00, 0x02 ... 0xBF, 0xD8:
                throw .malformedJPEG(offset: markerOffset, .invalidMarker(marker))
            default:
                break
            }
            guard offset + 2 <= bytes.count else { throw .malformedJPEG(offset: markerOffset, .segmentPastEnd) }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2 else { throw .malformedJPEG(offset: markerOffset, .invalidLength(length)) }
            let end = offset + length
            guard end <= bytes.count else { throw .malformedJPEG(offset: markerOffset, .segmentPastEnd) }
            let payload = offset + 2 ..< end
            switch disposition(marker, payload) {
            case .keep:
                output.append(contentsOf: bytes[start ..< end])
            case .drop:
                break
            case .keepOrientation:
                if !sawScan, !wroteOrientation, let orientation = orientation(in: payload) {
                    output.append(contentsOf: Self.orientationSegment(orientation))
                    wroteOrientation = true
                }
            }
            offset = end
            if marker == 0xDA {
                inScan = true
                sawScan = true
            }
        }
    }

    /// Copies entropy-coded data (with its stuffed `FF 00` bytes and RSTn markers) up to the next
    /// marker, leaving `offset` at that marker's first `0xFF`.
    private mutating func copyScanData() throws(LocationMetadataError) {
        guard let marker = Self.nextMarker(in: bytes, from: offset) else {
            throw .malformedJPEG(offset: offset, .noEndOfImage)
        }
        output.append(contentsOf: bytes[offset ..< marker])
        offset = marker
    }

    /// The offset of the `0xFF` that starts the next marker other than a stuffed byte or RSTn,
    /// or `nil` when the file ends first.
    private static func nextMarker(in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var position = start
            while position < buffer.count {
                guard let found = memchr(base + position, 0xFF, buffer.count - position) else { return nil }
                let index = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                guard index + 1 < buffer.count else { return nil }
                let next = buffer[index + 1]
                if next == 0x00 || (0xD0 ... 0xD7).contains(next) {
                    position = index + 2
                    continue
                }
                return index
            }
            return nil
        }
    }

    private func disposition(_ marker: UInt8, _ payload: Range<Int>) -> Disposition {
        switch marker {
        case 0xE0:
            startsWith("JFIF\0", payload) ? .keep : .drop
        case 0xE1:
            startsWith("Exif\0\0", payload) ? .keepOrientation : .drop
        case 0xE2:
            startsWith("ICC_PROFILE\0", payload) ? .keep : .drop
        case 0xEE:
            startsWith("Adobe", payload) ? .keep : .drop
        case 0xE3 ... 0xED, 0xEF, 0xFE:
            .drop
        default:
            .keep
        }
    }

    private func startsWith(_ identifier: String, _ payload: Range<Int>) -> Bool {
        let expected = identifier.utf8
        return payload.count >= expected.count
            && bytes[payload.lowerBound ..< payload.lowerBound + expected.count].elementsEqual(expected)
    }

    /// The EXIF Orientation (2–8) of an EXIF APP1 payload's IFD0, if it has a valid one; 1 (the
    /// default) and anything malformed give `nil`. Every read is bounded by the payload.
    private func orientation(in payload: Range<Int>) -> UInt8? {
        let tiff = payload.lowerBound + 6
        let end = payload.upperBound
        guard tiff + 8 <= end else { return nil }
        let littleEndian: Bool
        switch (bytes[tiff], bytes[tiff + 1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func read(_ at: Int, _ width: Int) -> Int? {
            guard at >= tiff, at <= end - width else { return nil }
            var value = 0
            for index in 0 ..< width {
                let byte = Int(bytes[littleEndian ? at + width - 1 - index : at + index])
                value = value << 8 | byte
            }
            return value
        }
        guard read(tiff + 2, 2) == 42, let ifd = read(tiff + 4, 4), let count = read(tiff + ifd, 2) else { return nil }
        for index in 0 ..< count {
            let entry = tiff + ifd + 2 + 12 * index
            guard let tag = read(entry, 2) else { return nil }
            guard tag == 0x0112 else { continue }
            guard read(entry + 2, 2) == 3, read(entry + 4, 4) == 1, let value = read(entry + 8, 2),
                  (2 ... 8).contains(value) else { return nil }
            return UInt8(value)
        }
        return nil
    }

    /// An APP1 EXIF segment holding only IFD0's Orientation (big-endian TIFF).
    private static func orientationSegment(_ orientation: UInt8) -> [UInt8] {
        [0xFF, 0xE1, 0x00, 0x22]
            + Array("Exif".utf8) + [0, 0]
            + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
            + [0x00, 0x01]
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, orientation, 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]
    }
}

/// One walk over a PNG's chunks, copying the allowed ones.
private enum PNGStripper {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Chunks that hold pixels, colour, layout or animation, never a location.
    private static let kept: Set<UInt32> = Set([
        "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "cICP", "mDCV", "mDCv",
        "cLLI", "cLLi", "bKGD", "hIST", "pHYs", "sPLT", "tIME", "acTL", "fcTL", "fdAT",
    ].map(code))

    private static let end = code("IEND")

    private static func code(_ type: String) -> UInt32 {
        type.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func run(_ bytes: [UInt8]) throws(LocationMetadataError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        output.append(contentsOf: signature)
        var offset = signature.count
        while true {
            guard offset < bytes.count else { throw .malformedPNG(offset: offset, .noEnd) }
            guard offset + 8 <= bytes.count else { throw .malformedPNG(offset: offset, .chunkHeaderPastEnd) }
            let length = bytes[offset ..< offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard length <= 0x7FFF_FFFF else { throw .malformedPNG(offset: offset, .chunkTooLong(length)) }
            let typeBytes = bytes[offset + 4 ..< offset + 8]
            guard typeBytes.allSatisfy({ (0x41 ... 0x5A).contains($0) || (0x61 ... 0x7A).contains($0) }) else {
                throw .malformedPNG(offset: offset, .invalidChunkType)
            }
            let type = typeBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let chunkEnd = offset + 12 + Int(length)
            guard chunkEnd <= bytes.count else { throw .malformedPNG(offset: offset, .chunkPastEnd) }
            if kept.contains(type) { output.append(contentsOf: bytes[offset ..< chunkEnd]) }
            offset = chunkEnd
            if type == end { return output }
        }
    }
}
