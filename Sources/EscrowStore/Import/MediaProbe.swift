import Foundation

/// Identifies media files by their content and reads the metadata the `Photos` table needs.
///
/// `MediaProbe` looks only at bytes: the magic numbers at the start of the file decide the format,
/// never the file's name. Supported formats are JPEG, PNG, GIF and WebP images, HEIC/HEIF/AVIF
/// images (ISO BMFF), MP4/MOV/M4A video and audio (ISO BMFF) and MP3 audio. Every length read from
/// the file is checked against the buffer and every walk over boxes, segments or chunks is bounded,
/// so hostile input either yields a (possibly partial) `MediaInfo`, `nil`, or an `ImportError`.
///
/// Dates are seconds since 1970 in UTC. An EXIF date without an `OffsetTimeOriginal` is treated as
/// UTC, because EXIF has no other way to say which zone the camera clock was in.
///
/// Thread safety: stateless; safe to call from any thread or task concurrently.
public enum MediaProbe {
    /// Identifies the file by its content (magic bytes, never the extension alone) and reads what it can.
    ///
    /// Images get their pixel size (JPEG from the SOFn marker, PNG from IHDR, HEIC from the primary
    /// item's `ispe` property) and, for JPEG, PNG and HEIC, the EXIF capture date and GPS position.
    /// ISO BMFF movies get their duration and creation time from `mvhd`, the pixel size of the first
    /// video track from `tkhd`, and a `©xyz` location when present. MP3 gets its duration from a
    /// Xing/Info or VBRI header, else a constant-bitrate estimate.
    ///
    /// - Parameters:
    ///   - bytes: The whole file.
    ///   - file: The file's path, used only in error messages.
    /// - Returns: What could be read, or `nil` for files that are not supported media (text files,
    ///   `.DS_Store`, unknown formats, an ID3 tag not followed by an MPEG Layer III frame).
    /// - Throws: `ImportError(file: file, line: nil, reason: …)` when the file starts like a
    ///   supported format but is so corrupt or truncated that nothing can be read from it.
    public static func probe(_ bytes: [UInt8], file: String) throws(ImportError) -> MediaInfo? {
        try probe(ProbeBytes(bytes), file: file)
    }

    /// Probes a file on disk, memory-mapped: only the pages the probe reads are loaded, so a
    /// multi-gigabyte video costs no more memory than a photo.
    ///
    /// - Throws: `ImportError` when the file cannot be read, or as `probe(_:file:)`.
    public static func probe(fileAt url: URL) throws(ImportError) -> MediaInfo? {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw ImportError(file: url.path, line: nil, reason: "cannot be read (check its permissions)")
        }
        return try probe(ProbeBytes(data), file: url.path)
    }

    private static func probe(_ data: ProbeBytes, file: String) throws(ImportError) -> MediaInfo? {
        do {
            if data.hasPrefix([0xFF, 0xD8, 0xFF]) { return try probeJPEG(data) }
            if data.hasPrefix([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return try probePNG(data) }
            if data.hasPrefix(Array("GIF87a".utf8)) || data.hasPrefix(Array("GIF89a".utf8)) {
                return try probeGIF(data)
            }
            if data.hasPrefix(Array("RIFF".utf8)), data.fourCC(at: 8) == "WEBP" { return try probeWebP(data) }
            if data.fourCC(at: 4) == "ftyp" { return try probeISOBMFF(data) }
            return try probeMP3(data)
        } catch {
            throw ImportError(file: file, line: nil, reason: error.reason)
        }
    }
}

/// Why a file that claims a supported format could not be read; becomes an `ImportError`.
struct ProbeFailure: Error {
    let reason: String

    init(_ reason: String) { self.reason = reason }
}
