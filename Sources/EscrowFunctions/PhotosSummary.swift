import EscrowCore

/// Counts photos, videos and recordings by month and media type: what a gallery app needs for
/// its timeline without seeing a single picture.
public struct PhotosSummary: ComputeFunction {
    public static let id = "photos.summary"
    public static let version = 1
    public static let summary = "Counts items by month and media type; no picture, date or place leaves."
    public static let inputs = InputContract.columns([
        InputColumn("mediaType", .string),
        InputColumn("creationDate", .string),
    ])
    public static let codeDigest = SourceDigest.of(#fileID)

    public init() {}

    public func compute(_ input: Frame, context: ComputeContext) throws -> Frame {
        let types = try input.column("mediaType")
        let dates = try input.column("creationDate")
        var counts: [Key: Int64] = [:]
        for row in 0..<input.rowCount {
            let month = dates.string(at: row).flatMap { $0.count >= 7 ? String($0.prefix(7)) : nil } ?? "unknown"
            counts[Key(month: month, mediaType: types.string(at: row) ?? "unknown"), default: 0] += 1
        }
        var month = ColumnBuilder(name: "month", type: .string)
        var mediaType = ColumnBuilder(name: "mediaType", type: .string)
        var count = ColumnBuilder(name: "count", type: .int64)
        for key in counts.keys.sorted() {
            month.append(key.month)
            mediaType.append(key.mediaType)
            count.append(counts[key] ?? 0)
        }
        return try Frame(columns: [month.build(), mediaType.build(), count.build()])
    }

    private struct Key: Hashable, Comparable {
        let month: String
        let mediaType: String

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.month, lhs.mediaType) < (rhs.month, rhs.mediaType) }
    }
}
