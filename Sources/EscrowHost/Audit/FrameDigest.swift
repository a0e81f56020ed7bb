import EscrowCore

/// SHA-256 of a frame's canonical encoding: what the audit entry records of the output an app
/// received, so the individual can later prove which output went out.
enum FrameDigest {
    static func sha256(_ frame: Frame) -> String {
        var encoder = CanonicalEncoder()
        encoder.append("escrow.frame.v1")
        encoder.append(Int64(frame.columns.count))
        encoder.append(Int64(frame.rowCount))
        for column in frame.columns {
            encoder.append(column.name)
            encoder.append(column.type.rawValue)
            for row in 0..<column.count {
                switch column.value(at: row) {
                case nil: encoder.append(nil as String?)
                case .int64(let value): encoder.append(value)
                case .double(let value): encoder.append(value)
                case .string(let value): encoder.append(value)
                case .bytes(let value): encoder.append(bytes: value)
                case .bool(let value): encoder.append(Int64(value ? 1 : 0))
                }
            }
        }
        return encoder.sha256()
    }
}
