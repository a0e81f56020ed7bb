/// Dense indices 0, 1, 2… for the distinct strings of a column (apps, hosts, domains), so the
/// reports count into arrays instead of hashing the same names over and over.
///
/// Recorded requests come in runs (one run's requests to one host one after the other), so the
/// last string looked up is remembered and compared first: a repeat costs a comparison, not a hash.
///
/// Thread safety: a value; each report builds its own.
struct StringTable {
    /// The distinct strings, by index.
    private(set) var strings: [String] = []
    private var indices: [String: Int] = [:]
    private var last: (string: String, index: Int)?

    init(capacity: Int = 0) {
        indices.reserveCapacity(capacity)
    }

    var count: Int { strings.count }

    /// The index of `string`, adding it when new.
    mutating func index(of string: String) -> Int {
        if let last, last.string == string { return last.index }
        let index: Int
        if let known = indices[string] {
            index = known
        } else {
            index = strings.count
            indices[string] = index
            strings.append(string)
        }
        last = (string, index)
        return index
    }

    subscript(index: Int) -> String { strings[index] }
}
