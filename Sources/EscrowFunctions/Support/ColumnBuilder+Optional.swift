import EscrowCore

extension ColumnBuilder {
    /// Appends text, or null for nil.
    mutating func append(_ value: String?) {
        if let value { append(value) } else { appendNull() }
    }
}
