import EscrowCore

/// Looks for values of the individual's data in an outbound request: the "sent values of your
/// data" flag of an egress record.
///
/// The scanner collects the distinctive values of the frame a compute function read (its
/// *needles*) once, then checks each request the function makes for any of them appearing
/// verbatim, byte for byte, in the URL or in the body. A flag is a hint when raised and never a
/// promise when not: data the function hashes, encrypts, compresses, splits or writes another way
/// (JSON escapes, base64, other number formats) is not seen.
///
/// The needles:
/// - Text cells of at least `minimumValueLength` (4) UTF-8 bytes — shorter ones, such as "a" or
///   "de", would flag every request — and their query-component percent-encoding when it
///   differs: every byte other than `A–Z a–z 0–9 - . _ ~` as `%XX` (upper-case hex), with a space
///   both as `%20` and as `+` (`Ada%20Lovelace`, `Ada+Lovelace`).
/// - Double cells as Swift writes them, `description` (what `"\(latitude)"` gives: `41.7886`,
///   `-87.5987`), when finite and at least 4 characters long.
/// - Integer cells whose decimal form has at least 4 characters (years and ids count; 1, 2, 3
///   do not).
/// - Bytes cells (photos) of at least `blobPrefixLength` (64) bytes: their first 64 bytes,
///   looked for in the body only (a URL does not carry raw bytes).
/// - Never boolean cells or nulls.
///
/// A needle longer than `maximumNeedleLength` (64) bytes is cut to its first 64 bytes: a long
/// value is flagged when its beginning is sent. Equal needles are kept once.
///
/// Cost: one pass over the haystack, whatever the number and lengths of the needles: at each
/// position a bit test on its next 8 and next 4 bytes, and only where a needle begins so, a
/// lookup of the windows of the lengths filed under that beginning (see `NeedleTable`). At most `maximumNeedleCount` (100,000) distinct needles are kept, the first ones
/// found reading the frame row by row (columns left to right, a text's own bytes before its
/// encodings); values past the cap are not seen. At most the first `maximumScanLength` (1 MiB)
/// of the URL and of the body is scanned. URL and body are separate haystacks: a value split
/// across the two is not seen.
///
/// Thread safety: an immutable value; share it between tasks and call `appears` concurrently.
public struct SentValueScanner: Sendable {
    /// Fewest bytes (or characters, for a number) a value needs to be looked for.
    public static let minimumValueLength = 4
    /// Longest needle, in bytes; a longer value is looked for by its first this many bytes.
    public static let maximumNeedleLength = 64
    /// Bytes of a blob looked for (its first ones); shorter blobs are not looked for.
    public static let blobPrefixLength = 64
    /// Most distinct needles kept; values found after the cap is reached are not looked for.
    public static let maximumNeedleCount = 100_000
    /// Most bytes scanned of the URL and of the body (each); the rest is not looked at.
    public static let maximumScanLength = 1 << 20

    /// The needles, ready to be looked for.
    private let needles: NeedleTable

    /// Number of distinct needles collected (text, its encodings, numbers, blob prefixes).
    public let needleCount: Int

    /// Collects the distinctive values of `frame` (the access() result the function reads).
    ///
    /// - Parameter frame: the frame given to compute.
    public init(_ frame: Frame) {
        var collector = NeedleCollector()
        let columns = frame.columns.filter { $0.type != .bool }
        reading: for row in 0..<(columns.isEmpty ? 0 : frame.rowCount) {
            for column in columns where !column.isNull(at: row) {
                switch column.values {
                case .string(let values): collector.addText(values[row])
                case .double(let values): collector.addNumber(values[row])
                case .int64(let values): collector.addNumber(values[row])
                case .bytes(let values): collector.addBlob(values[row])
                case .bool: break
                }
                if collector.isFull { break reading }
            }
        }
        needles = collector.needles.sealed()
        needleCount = collector.count
    }

    /// Whether any collected value appears verbatim in the URL or the body.
    ///
    /// Returns false at once when nothing was collected. Blob prefixes are looked for in the body
    /// only; only the first `maximumScanLength` bytes of each are scanned.
    ///
    /// - Parameters:
    ///   - url: the request's URL, as sent.
    ///   - body: the request's body.
    /// - Returns: true when a needle occurs in `url` or in `body` — a hint, not a promise.
    public func appears(inURL url: String, body: [UInt8]) -> Bool {
        guard !needles.isEmpty else { return false }
        var url = url
        let inURL = url.withUTF8 { scan(UnsafeBufferPointer(rebasing: $0.prefix(Self.maximumScanLength)), isURL: true) }
        if inURL { return true }
        return body.withUnsafeBufferPointer {
            scan(UnsafeBufferPointer(rebasing: $0.prefix(Self.maximumScanLength)), isURL: false)
        }
    }

    private func scan(_ haystack: UnsafeBufferPointer<UInt8>, isURL: Bool) -> Bool {
        guard !isURL || needles.hasURLNeedles else { return false }
        return needles.occurs(in: haystack, isURL: isURL)
    }
}

/// Gathers needles, each once, until the cap.
private struct NeedleCollector {
    private(set) var needles = NeedleTable()
    var count: Int { needles.count }

    var isFull: Bool { count >= SentValueScanner.maximumNeedleCount }

    mutating func addText(_ text: String) {
        let utf8 = text.utf8
        guard utf8.count >= SentValueScanner.minimumValueLength else { return }
        add(Array(utf8.prefix(SentValueScanner.maximumNeedleLength)), inURL: true)
        guard utf8.contains(where: { !PercentEncoding.isUnreserved($0) }) else { return }
        add(PercentEncoding.encode(utf8, space: PercentEncoding.spaceAsPercent), inURL: true)
        if utf8.contains(UInt8(ascii: " ")) {
            add(PercentEncoding.encode(utf8, space: PercentEncoding.spaceAsPlus), inURL: true)
        }
    }

    mutating func addNumber(_ value: Double) {
        guard value.isFinite else { return }
        let text = value.description
        guard text.utf8.count >= SentValueScanner.minimumValueLength else { return }
        add(Array(text.utf8), inURL: true)
    }

    mutating func addNumber(_ value: Int64) {
        guard value >= 1000 || value <= -100 else { return }
        add(Array(String(value).utf8), inURL: true)
    }

    mutating func addBlob(_ blob: [UInt8]) {
        guard blob.count >= SentValueScanner.blobPrefixLength else { return }
        add(Array(blob.prefix(SentValueScanner.blobPrefixLength)), inURL: false)
    }

    private mutating func add(_ needle: [UInt8], inURL: Bool) {
        needle.withUnsafeBufferPointer { needles.insert($0, inURL: inURL, unlessFull: SentValueScanner.maximumNeedleCount) }
    }
}

/// The needles, found in one pass over a haystack.
///
/// Each needle is filed twice: under its first 8 bytes (its first 4 when it is shorter), with the
/// set of needle lengths filed under that beginning as a bit mask; and under a hash of all its
/// bytes. At each position of the haystack the next 8 and next 4 bytes are tested against a bit
/// set of the beginnings; only a position that passes is looked up, and then for each length
/// under its beginning the window of that length is hashed, looked up and compared byte for byte.
/// A position costs the same however many values share a beginning (phone numbers, coordinates
/// of one city): it depends on the distinct lengths there, at most 61.
private struct NeedleTable: Sendable {
    /// The needles end to end, each at `starts[i]` for `lengths[i]` bytes.
    private var bytes: [UInt8] = []
    private var starts: [Int32] = []
    private var lengths: [UInt8] = []
    /// Whether needle `i` is looked for in URLs too (false for blob prefixes).
    private var inURL: [Bool] = []
    private(set) var hasURLNeedles = false
    /// Lengths filed under a beginning: bit `n - 1` for length `n` (4 through 64).
    private var lengthsBy8: [UInt64: UInt64] = [:]
    private var lengthsBy4: [UInt32: UInt64] = [:]
    /// The first needle with a full hash; the next ones with the same hash follow `nextSameHash`.
    private var firstWithHash: [UInt64: Int32] = [:]
    private var nextSameHash: [Int32] = []
    /// One bit per beginning, set for every beginning filed; built by `sealed()`, 16 bits per
    /// beginning (a position of unrelated bytes passes about once in 16 and is then looked up).
    private var filter8: [UInt64] = []
    private var filter4: [UInt64] = []
    private var filterShift: UInt64 = 64
    /// Fibonacci hashing: a key times this, its top bits pick the filter bit.
    static let spread: UInt64 = 0x9E37_79B9_7F4A_7C15

    var isEmpty: Bool { starts.isEmpty }
    var count: Int { starts.count }

    /// FNV-1a over the bytes.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    /// The needle equal to `bytes` with `hash`, if filed.
    private func index(of bytes: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int? {
        var candidate = firstWithHash[hash] ?? -1
        while candidate >= 0 {
            let index = Int(candidate)
            let start = Int(starts[index])
            if Int(lengths[index]) == bytes.count, self.bytes[start..<start + bytes.count].elementsEqual(bytes) { return index }
            candidate = nextSameHash[index]
        }
        return nil
    }

    /// Files `needle` (4 to 64 bytes) unless it is filed already (a URL needle then makes an
    /// equal blob prefix a URL needle too) or `limit` needles are.
    mutating func insert(_ needle: UnsafeBufferPointer<UInt8>, inURL url: Bool, unlessFull limit: Int) {
        let hash = Self.hash(needle)
        if let existing = index(of: needle, hash: hash) {
            if url {
                inURL[existing] = true
                hasURLNeedles = true
            }
            return
        }
        guard starts.count < limit, let base = needle.baseAddress else { return }
        let index = Int32(starts.count)
        starts.append(Int32(bytes.count))
        lengths.append(UInt8(needle.count))
        inURL.append(url)
        hasURLNeedles = hasURLNeedles || url
        bytes.append(contentsOf: needle)
        nextSameHash.append(firstWithHash[hash] ?? -1)
        firstWithHash[hash] = index
        let lengthBit: UInt64 = 1 << UInt64(needle.count - 1)
        let raw = UnsafeRawPointer(base)
        if needle.count >= 8 {
            lengthsBy8[raw.loadUnaligned(as: UInt64.self), default: 0] |= lengthBit
        } else {
            lengthsBy4[raw.loadUnaligned(as: UInt32.self), default: 0] |= lengthBit
        }
    }

    /// The table with its bit sets, sized to the beginnings (64 bits at least, 2^20 at most).
    func sealed() -> NeedleTable {
        var table = self
        var bitsLog2 = 6
        while bitsLog2 < 20, (1 << bitsLog2) < max(lengthsBy8.count, lengthsBy4.count) * 16 { bitsLog2 += 1 }
        table.filterShift = UInt64(64 - bitsLog2)
        var filter8 = [UInt64](repeating: 0, count: (1 << bitsLog2) / 64)
        var filter4 = filter8
        for key in lengthsBy8.keys { table.set(&filter8, key) }
        for key in lengthsBy4.keys { table.set(&filter4, UInt64(key)) }
        table.filter8 = filter8
        table.filter4 = filter4
        return table
    }

    private func bit(_ key: UInt64) -> (word: Int, mask: UInt64) {
        let bit = (key &* Self.spread) >> filterShift
        return (Int(bit >> 6), 1 << (bit & 63))
    }

    private func set(_ filter: inout [UInt64], _ key: UInt64) {
        let (word, mask) = bit(key)
        filter[word] |= mask
    }

    /// Whether a needle (a URL one when `isURL`) occurs in `haystack`.
    func occurs(in haystack: UnsafeBufferPointer<UInt8>, isURL: Bool) -> Bool {
        guard haystack.count >= SentValueScanner.minimumValueLength, let base = haystack.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        let count = haystack.count
        return filter8.withUnsafeBufferPointer { filter8 in
            filter4.withUnsafeBufferPointer { filter4 in
                for position in 0...(count - 4) {
                    if position + 8 <= count {
                        let key = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                        let (word, mask) = bit(key)
                        if filter8[word] & mask != 0, let lengths = lengthsBy8[key],
                           matches(lengths, at: position, in: haystack, isURL: isURL) {
                            return true
                        }
                    }
                    let key = raw.loadUnaligned(fromByteOffset: position, as: UInt32.self)
                    let (word, mask) = bit(UInt64(key))
                    if filter4[word] & mask != 0, let lengths = lengthsBy4[key],
                       matches(lengths, at: position, in: haystack, isURL: isURL) {
                        return true
                    }
                }
                return false
            }
        }
    }

    /// Whether a needle of one of `lengths` (a bit mask) is the haystack's bytes at `position`.
    private func matches(_ lengths: UInt64, at position: Int, in haystack: UnsafeBufferPointer<UInt8>,
                         isURL: Bool) -> Bool {
        var remaining = lengths
        while remaining != 0 {
            let length = remaining.trailingZeroBitCount + 1
            remaining &= remaining - 1
            guard position + length <= haystack.count else { break }
            let window = UnsafeBufferPointer(rebasing: haystack[position..<position + length])
            if let index = index(of: window, hash: Self.hash(window)), !isURL || inURL[index] { return true }
        }
        return false
    }
}

/// Query-component percent-encoding, cut to the longest needle.
private enum PercentEncoding {
    static let spaceAsPercent: [UInt8] = Array("%20".utf8)
    static let spaceAsPlus: [UInt8] = [UInt8(ascii: "+")]
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Whether `byte` stays as it is: `A–Z a–z 0–9 - . _ ~` (RFC 3986's unreserved characters).
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// The first `SentValueScanner.maximumNeedleLength` bytes of `text` encoded, a space as `space`.
    static func encode(_ text: String.UTF8View, space: [UInt8]) -> [UInt8] {
        let limit = SentValueScanner.maximumNeedleLength
        var encoded: [UInt8] = []
        encoded.reserveCapacity(limit + 2)
        for byte in text {
            if isUnreserved(byte) {
                encoded.append(byte)
            } else if byte == UInt8(ascii: " ") {
                encoded.append(contentsOf: space)
            } else {
                encoded.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            }
            if encoded.count >= limit { break }
        }
        return Array(encoded.prefix(limit))
    }
}
