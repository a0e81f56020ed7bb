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
            // Straight from the typed storage; a null encodes as the tag 0x00 whatever the type.
            switch column.values {
            case .int64(let values): encode(values, column, &encoder) { $0.append($1) }
            case .double(let values): encode(values, column, &encoder) { $0.append($1) }
            case .string(let values): encode(values, column, &encoder) { $0.append($1) }
            case .bytes(let values): encode(values, column, &encoder) { $0.append(bytes: $1) }
            case .bool(let values): encode(values, column, &encoder) { $0.append(Int64($1 ? 1 : 0)) }
            }
        }
        return encoder.sha256()
    }

    private static func encode<Value>(_ values: [Value], _ column: Column, _ encoder: inout CanonicalEncoder,
                                      _ append: (inout CanonicalEncoder, Value) -> Void) {
        if column.nulls.isEmpty {
            for value in values { append(&encoder, value) }
        } else {
            for (value, isNull) in zip(values, column.nulls) {
                if isNull { encoder.append(nil as String?) } else { append(&encoder, value) }
            }
        }
    }
}
