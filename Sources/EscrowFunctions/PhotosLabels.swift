import EscrowCore
import Foundation

/// Labels pictures from their pixels: each JPEG or PNG is decoded and described by its size,
/// brightness, contrast, colorfulness, dominant color, a perceptual hash and plain labels
/// ("sky", "vegetation", "dark", "document", …). The pictures themselves never leave.
///
/// Input: an `asset` column (the pictures' bytes) and optionally an `id` column, passed through
/// so the app can tell the pictures apart. A picture that cannot be decoded (HEIC, a video, a
/// damaged file) gets a row with only its `problem`; the run goes on.
///
/// Pictures are decoded in parallel, one decoder per processor.
public struct PhotosLabels: ComputeFunction {
    public static let id = "photos.labels"
    public static let version = 1
    public static let summary = "Decodes your pictures and gives the app labels, colors and a similarity hash for each; no picture leaves."
    public static let inputs = InputContract.columns([InputColumn("asset", .bytes)])
    public static let codeDigest = SourceDigest.of(#fileID)

    public init() {}

    /// The labels of one picture.
    ///
    /// Thread safety: a value type.
    public struct Picture: Sendable, Equatable {
        /// The `id` the access() query selected, if it selected one.
        public let id: Int64?
        /// Full size in pixels; nil when the picture could not be decoded.
        public let width: Int?
        public let height: Int?
        /// Mean luma, 0 (black) to 1 (white).
        public let brightness: Double?
        /// Standard deviation of luma, 0 to 0.5.
        public let contrast: Double?
        /// Hasler–Süsstrunk colorfulness: under 15 practically grey, above 80 very colorful.
        public let colorfulness: Double?
        /// red, orange, yellow, green, cyan, blue, purple, pink, black, grey or white.
        public let dominantColor: String?
        /// Plain labels: the orientation ("landscape", "portrait", "square") then any of "dark",
        /// "bright", "flat", "monochrome", "colorful", "sky", "vegetation", "warm light", "night",
        /// "document".
        public let labels: [String]
        /// 64-bit difference hash, 16 hex digits; alike pictures differ in few bits.
        public let perceptualHash: String?
        /// Why the picture has no labels, when it has none.
        public let problem: String?
    }

    /// The function's output: one `Picture` per input row, in the input's order.
    ///
    /// Thread safety: a value type.
    public struct Output: FrameRepresentable, Equatable {
        public let pictures: [Picture]

        public init(pictures: [Picture]) { self.pictures = pictures }

        public func frame() throws -> Frame {
            var id = ColumnBuilder(name: "id", type: .int64)
            var width = ColumnBuilder(name: "width", type: .int64)
            var height = ColumnBuilder(name: "height", type: .int64)
            var brightness = ColumnBuilder(name: "brightness", type: .double)
            var contrast = ColumnBuilder(name: "contrast", type: .double)
            var colorfulness = ColumnBuilder(name: "colorfulness", type: .double)
            var dominantColor = ColumnBuilder(name: "dominantColor", type: .string)
            var labels = ColumnBuilder(name: "labels", type: .string)
            var hash = ColumnBuilder(name: "perceptualHash", type: .string)
            var problem = ColumnBuilder(name: "problem", type: .string)
            for picture in pictures {
                id.append(picture.id.map(FrameValue.int64))
                width.append(picture.width.map { .int64(Int64($0)) })
                height.append(picture.height.map { .int64(Int64($0)) })
                brightness.append(picture.brightness.map(FrameValue.double))
                contrast.append(picture.contrast.map(FrameValue.double))
                colorfulness.append(picture.colorfulness.map(FrameValue.double))
                dominantColor.append(picture.dominantColor)
                labels.append(String(decoding: try JSONEncoder().encode(picture.labels), as: UTF8.self))
                hash.append(picture.perceptualHash)
                problem.append(picture.problem)
            }
            return try Frame(columns: [id, width, height, brightness, contrast, colorfulness, dominantColor,
                                       labels, hash, problem].map { $0.build() })
        }

        public init(frame: Frame) throws {
            let columns = try ["id", "width", "height", "brightness", "contrast", "colorfulness", "dominantColor",
                               "labels", "perceptualHash", "problem"].map { name throws(FrameError) in try frame.column(name) }
            pictures = try (0..<frame.rowCount).map { row in
                Picture(id: columns[0].int64(at: row),
                        width: columns[1].int64(at: row).map(Int.init), height: columns[2].int64(at: row).map(Int.init),
                        brightness: columns[3].double(at: row), contrast: columns[4].double(at: row),
                        colorfulness: columns[5].double(at: row), dominantColor: columns[6].string(at: row),
                        labels: try JSONDecoder().decode([String].self, from: Data((columns[7].string(at: row) ?? "[]").utf8)),
                        perceptualHash: columns[8].string(at: row), problem: columns[9].string(at: row))
            }
        }
    }

    public func compute(_ input: Frame, context: ComputeContext) async throws -> Output {
        let assets = try input.column("asset")
        let ids = input.columnNames.contains("id") ? try input.column("id") : nil
        let rows = input.rowCount
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, rows / 8))
        let pictures = try await withThrowingTaskGroup(of: (Int, [Picture]).self) { group in
            for worker in 0..<workers {
                let range = (rows * worker / workers)..<(rows * (worker + 1) / workers)
                group.addTask {
                    let decoder = try ImageDecoder()
                    return (worker, range.map { row in
                        Self.label(assets.bytes(at: row), id: ids?.int64(at: row), decoder: decoder)
                    })
                }
            }
            var parts = [[Picture]](repeating: [], count: workers)
            for try await (worker, part) in group { parts[worker] = part }
            return parts.flatMap { $0 }
        }
        return Output(pictures: pictures)
    }

    private static func label(_ bytes: [UInt8]?, id: Int64?, decoder: borrowing ImageDecoder) -> Picture {
        guard let bytes else { return failed(id: id, "no picture (null)") }
        do {
            let decoded = try decoder.decode(bytes, minimumSide: ImageAnalysis.analysisSide)
            let analysis = ImageAnalysis(decoded.image, width: decoded.width, height: decoded.height)
            let hash = String(analysis.perceptualHash, radix: 16)
            return Picture(id: id, width: decoded.width, height: decoded.height, brightness: analysis.brightness,
                           contrast: analysis.contrast, colorfulness: analysis.colorfulness,
                           dominantColor: analysis.dominantColor, labels: analysis.labels,
                           perceptualHash: String(repeating: "0", count: 16 - hash.count) + hash, problem: nil)
        } catch {
            return failed(id: id, error.description)
        }
    }

    private static func failed(id: Int64?, _ problem: String) -> Picture {
        Picture(id: id, width: nil, height: nil, brightness: nil, contrast: nil, colorfulness: nil,
                dominantColor: nil, labels: [], perceptualHash: nil, problem: problem)
    }
}
