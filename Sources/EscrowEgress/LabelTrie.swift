/// Domain names stored label by label from the right (`com` → `example` → `www`), each node
/// marked with what ends there: the one structure behind the Public Suffix List and the tracker
/// lists. Walking a host costs one hash lookup per label, whatever the number of names stored.
struct LabelTrie: Sendable {
    /// What a stored name is.
    struct Marks: OptionSet, Sendable {
        let rawValue: UInt8
        /// A name of the list (a public suffix rule, a tracker domain).
        static let name = Marks(rawValue: 1)
        /// A Public Suffix List exception (`!www.ck`).
        static let exception = Marks(rawValue: 2)
        /// An IP address: it matches itself only, not names that end in its labels.
        static let address = Marks(rawValue: 4)
    }

    private var children: [[Substring: Int32]] = [[:]]
    private var marks: [Marks] = [[]]

    /// The root: no label read yet.
    static let root: Int32 = 0

    /// Names stored.
    private(set) var count = 0

    /// Stores `labels` (from the right) with `mark`.
    mutating func insert(_ labels: some Sequence<Substring>, mark: Marks) {
        var node = Self.root
        for label in labels {
            if let next = children[Int(node)][label] {
                node = next
            } else {
                let next = Int32(children.count)
                children.append([:])
                marks.append([])
                children[Int(node)][label] = next
                node = next
            }
        }
        if !marks[Int(node)].contains(mark) {
            if marks[Int(node)].isEmpty { count += 1 }
            marks[Int(node)].insert(mark)
        }
    }

    /// The node under `node` for `label`, if any.
    func child(_ node: Int32, _ label: Substring) -> Int32? {
        children[Int(node)][label]
    }

    func marks(_ node: Int32) -> Marks {
        marks[Int(node)]
    }
}
