import CPNG
import CTurboJPEG

/// Why a picture could not be decoded; rendered per picture, the run goes on.
enum ImageDecodingError: Error, Equatable, CustomStringConvertible {
    /// Not a JPEG or PNG (HEIC, a video, a recording, anything else).
    case unsupportedFormat(String)
    /// The file claims to be a JPEG or PNG but the library could not read it.
    case damaged(format: String, reason: String)
    /// More pixels than this function decodes.
    case tooLarge(width: Int, height: Int)

    var description: String {
        switch self {
        case .unsupportedFormat(let format): "\(format) pictures are not decoded by this function (JPEG and PNG are)"
        case .damaged(let format, let reason): "damaged \(format): \(reason)"
        case .tooLarge(let width, let height): "\(width)×\(height) pixels is more than this function decodes"
        }
    }
}

/// Decodes JPEG (libjpeg-turbo's TurboJPEG API) and PNG (libpng's simplified API) into reduced
/// RGB pictures for analysis.
///
/// JPEGs are decoded with the DCT scaling the format allows (1/2, 1/4 or 1/8), so a 12-megapixel
/// photo costs a fraction of a full decode; PNGs are decoded whole (at most 64 megapixels) and
/// then reduced.
///
/// Thread safety: not thread-safe; owns a TurboJPEG handle. Make one per task.
struct ImageDecoder: ~Copyable {
    /// The most pixels a PNG (or a JPEG after DCT scaling) may have.
    static let maximumPixels = 64 * 1024 * 1024

    private let jpeg: tjhandle

    /// - Throws: `ImageDecodingError.damaged` when libjpeg-turbo cannot allocate its decoder.
    init() throws(ImageDecodingError) {
        guard let handle = tjInitDecompress() else {
            throw .damaged(format: "JPEG", reason: "libjpeg-turbo could not create a decoder")
        }
        jpeg = handle
    }

    deinit { tjDestroy(jpeg) }

    /// Decodes a picture so that its longer side is at least `minimumSide` when the picture has
    /// that many pixels (JPEG scaling never goes below it).
    ///
    /// - Returns: The picture's full size and the decoded (possibly reduced) pixels.
    /// - Throws: `ImageDecodingError`.
    func decode(_ bytes: [UInt8], minimumSide: Int) throws(ImageDecodingError) -> (width: Int, height: Int, image: RGBImage) {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return try decodeJPEG(bytes, minimumSide: minimumSide) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return try decodePNG(bytes) }
        throw .unsupportedFormat(Self.formatName(bytes))
    }

    private func decodeJPEG(_ bytes: [UInt8], minimumSide: Int) throws(ImageDecodingError) -> (width: Int, height: Int, image: RGBImage) {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(jpeg, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard header == 0, width > 0, height > 0 else { throw .damaged(format: "JPEG", reason: lastJPEGError()) }
        guard colorspace != TJCS_CMYK.rawValue, colorspace != TJCS_YCCK.rawValue else {
            throw .unsupportedFormat("CMYK JPEG")
        }
        let factor = scalingFactor(width: Int(width), height: Int(height), minimumSide: minimumSide)
        let scaledWidth = (Int(width) * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
        let scaledHeight = (Int(height) * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
        guard scaledWidth * scaledHeight <= Self.maximumPixels else { throw .tooLarge(width: Int(width), height: Int(height)) }
        var pixels = [UInt8](repeating: 0, count: scaledWidth * scaledHeight * 3)
        let status = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(jpeg, source.baseAddress, UInt(source.count), target.baseAddress, Int32(scaledWidth), 0,
                              Int32(scaledHeight), TJPF_RGB.rawValue, TJFLAG_FASTDCT)
            }
        }
        // A warning (a truncated or slightly corrupt file) still leaves a decoded picture.
        if status != 0, tjGetErrorCode(jpeg) != TJERR_WARNING.rawValue {
            throw .damaged(format: "JPEG", reason: lastJPEGError())
        }
        return (Int(width), Int(height), RGBImage(width: scaledWidth, height: scaledHeight, pixels: pixels))
    }

    /// The smallest DCT scaling factor that keeps the longer side at least `minimumSide`.
    private func scalingFactor(width: Int, height: Int, minimumSide: Int) -> tjscalingfactor {
        var count: Int32 = 0
        let whole = tjscalingfactor(num: 1, denom: 1)
        guard let factors = tjGetScalingFactors(&count) else { return whole }
        let longer = max(width, height)
        var best = whole
        for factor in UnsafeBufferPointer(start: factors, count: Int(count)) where factor.num <= factor.denom {
            let side = (longer * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
            if side >= min(minimumSide, longer), factor.num * best.denom < best.num * factor.denom { best = factor }
        }
        return best
    }

    private func lastJPEGError() -> String {
        guard let message = tjGetErrorStr2(jpeg) else { return "unreadable JPEG" }
        return String(cString: message)
    }

    private func decodePNG(_ bytes: [UInt8]) throws(ImageDecodingError) -> (width: Int, height: Int, image: RGBImage) {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBufferPointer { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw .damaged(format: "PNG", reason: Self.message(of: image)) }
        let width = Int(image.width)
        let height = Int(image.height)
        guard width > 0, height > 0, width * height <= Self.maximumPixels else {
            png_image_free(&image)
            throw .tooLarge(width: width, height: height)
        }
        image.format = UInt32(PNG_FORMAT_RGB)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        // Transparent pixels are shown over white, as a viewer would.
        var background = png_color(red: 255, green: 255, blue: 255)
        let finished = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, &background, $0.baseAddress, 0, nil) }
        guard finished != 0 else { throw .damaged(format: "PNG", reason: Self.message(of: image)) }
        return (width, height, RGBImage(width: width, height: height, pixels: pixels))
    }

    private static func message(of image: png_image) -> String {
        var message = image.message
        let text = withUnsafeBytes(of: &message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "unreadable PNG" : text
    }

    /// A name for a file that is neither JPEG nor PNG, from its magic bytes.
    private static func formatName(_ bytes: [UInt8]) -> String {
        if bytes.count >= 12, bytes[4...7].elementsEqual("ftyp".utf8) {
            let brand = String(decoding: bytes[8...11], as: UTF8.self)
            return ["heic", "heix", "mif1", "msf1", "hevc"].contains(brand) ? "HEIC" : "ISO media (\(brand))"
        }
        if bytes.starts(with: Array("GIF8".utf8)) { return "GIF" }
        if bytes.starts(with: Array("ID3".utf8)) || bytes.starts(with: [0xFF, 0xFB]) { return "MP3" }
        return "this file format"
    }
}
