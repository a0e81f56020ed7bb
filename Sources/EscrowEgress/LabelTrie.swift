/// Domain names stored label by label from the right (`com` → `example` → `www`), each node
/// marked with what ends there: the one structure behind the Public Suffix List and the tracker
/// lists.
///
/// Walking a host costs one hash-table probe per label, whatever the number of names stored, and
/// allocates nothing: the children of every node live in one open-addressing table keyed by
/// (parent node, label bytes), and each node keeps its label's bytes to confirm a hit.
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

    /// The root: no label read yet.
    static let root: Int32 = 0

    // Per node (index 0 is the root).
    private var marks: [Marks] = [[]]
    private var parents: [Int32] = [-1]
    private var labelStarts: [Int32] = [0]
    private var labelLengths: [UInt8] = [0]
    /// Every node's label, one after another.
    private var labelBytes: [UInt8] = []
    // The table of children: slot → node (0: empty; the root is nobody's child) and its hash.
    private var slots: [Int32] = Array(repeating: 0, count: 16)
    private var slotHashes: [UInt64] = Array(repeating: 0, count: 16)

    /// Names stored.
    private(set) var count = 0

    /// Stores `labels` (from the right) with `mark`.
    mutating func insert(_ labels: some Sequence<Substring>, mark: Marks) {
        var node = Self.root
        for label in labels {
            let bytes = Array(label.utf8)
            if let next = bytes.withUnsafeBufferPointer({ child(node, $0) }) {
                node = next
                continue
            }
            if (parents.count + 1) * 2 > slots.count { grow() }
            let next = Int32(parents.count)
            marks.append([])
            parents.append(node)
            labelStarts.append(Int32(labelBytes.count))
            labelLengths.append(UInt8(truncatingIfNeeded: bytes.count))
            labelBytes.append(contentsOf: bytes)
            bytes.withUnsafeBufferPointer { place(next, hash: Self.hash(node, $0)) }
            node = next
        }
        if !marks[Int(node)].contains(mark) {
            if marks[Int(node)].isEmpty { count += 1 }
            marks[Int(node)].insert(mark)
        }
    }

    /// The node under `node` for the label `label`, if any.
    func child(_ node: Int32, _ label: UnsafeBufferPointer<UInt8>) -> Int32? {
        let hash = Self.hash(node, label)
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let candidate = slots[index]
            if candidate == 0 { return nil }
            if slotHashes[index] == hash, parents[Int(candidate)] == node, matches(candidate, label) { return candidate }
            index = (index + 1) & mask
        }
    }

    /// The node under `node` for the label `label`, if any.
    func child(_ node: Int32, _ label: StaticString) -> Int32? {
        label.withUTF8Buffer { child(node, $0) }
    }

    func marks(_ node: Int32) -> Marks {
        marks[Int(node)]
    }

    /// Calls `body` for each label of `host` from the right, with its bytes and the offset in
    /// `host.utf8` where it starts, until `body` returns false.
    static func forEachLabelFromTheRight(of host: String, _ body: (UnsafeBufferPointer<UInt8>, Int) -> Bool) {
        var host = host
        host.withUTF8 { bytes in
            var end = bytes.count
            while end > 0 {
                var start = end
                while start > 0, bytes[start - 1] != UInt8(ascii: ".") { start -= 1 }
                let label = UnsafeBufferPointer(rebasing: bytes[start..<end])
                guard body(label, start) else { return }
                end = start - 1
            }
        }
    }

    private func matches(_ node: Int32, _ label: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = Int(labelLengths[Int(node)])
        guard length == label.count else { return false }
        let start = Int(labelStarts[Int(node)])
        for offset in 0..<length where labelBytes[start + offset] != label[offset] { return false }
        return true
    }

    private mutating func place(_ node: Int32, hash: UInt64) {
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index] != 0 { index = (index + 1) & mask }
        slots[index] = node
        slotHashes[index] = hash
    }

    private mutating func grow() {
        let old = zip(slots, slotHashes).filter { $0.0 != 0 }
        slots = Array(repeating: 0, count: slots.count * 2)
        slotHashes = Array(repeating: 0, count: slotHashes.count * 2)
        for (node, hash) in old { place(node, hash: hash) }
    }

    /// FNV-1a over the parent's index and the label's bytes.
    private static func hash(_ parent: Int32, _ label: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var parent = UInt32(bitPattern: parent)
        for _ in 0..<4 {
            hash = (hash ^ UInt64(parent & 0xff)) &* 0x0000_0100_0000_01b3
            parent >>= 8
        }
        for byte in label { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash ^ (hash >> 29)
    }
}
