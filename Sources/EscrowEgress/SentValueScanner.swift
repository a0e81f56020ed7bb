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
/// Cost: needles are grouped by length; for each length present (at most 61: 4 through 64), a
/// 64-bit polynomial rolling hash runs once over the haystack and each window's hash is tested
/// against a bit set of that length's needle hashes; a hit is confirmed by comparing bytes. A
/// request therefore costs (distinct needle lengths) × (haystack bytes), whatever the number of
/// needles. At most `maximumNeedleCount` (100,000) distinct needles are kept, the first ones
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

    /// The needles, one group per length, shortest first.
    private let groups: [NeedleGroup]

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
        groups = collector.sealedGroups()
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
        guard !groups.isEmpty else { return false }
        var url = url
        let inURL = url.withUTF8 { scan(UnsafeBufferPointer(rebasing: $0.prefix(Self.maximumScanLength)), isURL: true) }
        if inURL { return true }
        return body.withUnsafeBufferPointer {
            scan(UnsafeBufferPointer(rebasing: $0.prefix(Self.maximumScanLength)), isURL: false)
        }
    }

    private func scan(_ haystack: UnsafeBufferPointer<UInt8>, isURL: Bool) -> Bool {
        for group in groups where group.length <= haystack.count && (!isURL || group.hasURLNeedles) {
            if group.occurs(in: haystack, isURL: isURL) { return true }
        }
        return false
    }
}

/// Gathers needles group by group until the cap.
private struct NeedleCollector {
    private var groups: [Int: NeedleGroup] = [:]
    private(set) var count = 0

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
        guard !isFull else { return }
        let length = needle.count
        if groups[length, default: NeedleGroup(length: length)].insert(needle, inURL: inURL) { count += 1 }
    }

    /// The groups, shortest first, each with its bit set built.
    func sealedGroups() -> [NeedleGroup] {
        groups.values.sorted { $0.length < $1.length }.map { $0.sealed() }
    }
}

/// The needles of one length, their hashes, and a bit set of those hashes for the scan.
private struct NeedleGroup: Sendable {
    /// Multiplier of the polynomial hash (odd, so every byte stays in the hash).
    static let base: UInt64 = 0xA076_1D64_78BD_642F
    /// Multiplier spreading a hash over the bit set (Fibonacci hashing: its top bits are used).
    static let spread: UInt64 = 0x9E37_79B9_7F4A_7C15

    let length: Int
    /// The needles end to end: needle `i` is `bytes[i * length ..< (i + 1) * length]`.
    private var bytes: [UInt8] = []
    /// Whether needle `i` is looked for in URLs too (false for blob prefixes).
    private var inURL: [Bool] = []
    /// The first needle with a hash; the next ones with the same hash follow `nextWithSameHash`.
    private var firstWithHash: [UInt64: Int32] = [:]
    private var nextWithSameHash: [Int32] = []
    private(set) var hasURLNeedles = false
    /// One bit per `spread`-ed hash, set for every needle's hash; built by `sealed()`.
    private var filter: [UInt64] = []
    private var filterShift: UInt64 = 63
    /// `base` to the power `length - 1`: the weight of the byte leaving the window.
    private let leavingWeight: UInt64

    init(length: Int) {
        self.length = length
        var weight: UInt64 = 1
        for _ in 1..<max(length, 1) { weight = weight &* Self.base }
        leavingWeight = weight
    }

    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 &* base &+ UInt64($1) }
    }

    /// Adds a needle of this group's length; false when it was there already (a URL needle then
    /// upgrades an equal blob prefix).
    mutating func insert(_ needle: [UInt8], inURL url: Bool) -> Bool {
        let hash = Self.hash(needle)
        var candidate = firstWithHash[hash] ?? -1
        while candidate >= 0 {
            let index = Int(candidate)
            if bytes[index * length..<(index + 1) * length].elementsEqual(needle) {
                if url { inURL[index] = true; hasURLNeedles = true }
                return false
            }
            candidate = nextWithSameHash[index]
        }
        nextWithSameHash.append(firstWithHash[hash] ?? -1)
        firstWithHash[hash] = Int32(inURL.count)
        bytes.append(contentsOf: needle)
        inURL.append(url)
        hasURLNeedles = hasURLNeedles || url
        return true
    }

    /// The group with its bit set: 32 bits per needle (a window of unrelated bytes passes the bit
    /// set about once in 32 and is then looked up), a power of two of at least 64.
    func sealed() -> NeedleGroup {
        var group = self
        var bitsLog2 = 6
        while (1 << bitsLog2) < inURL.count * 32 { bitsLog2 += 1 }
        group.filterShift = UInt64(64 - bitsLog2)
        group.filter = [UInt64](repeating: 0, count: (1 << bitsLog2) / 64)
        for hash in firstWithHash.keys {
            let bit = (hash &* Self.spread) >> group.filterShift
            group.filter[Int(bit >> 6)] |= 1 << (bit & 63)
        }
        return group
    }

    /// Whether a needle of this group (a URL one when `isURL`) occurs in `haystack`.
    func occurs(in haystack: UnsafeBufferPointer<UInt8>, isURL: Bool) -> Bool {
        guard haystack.count >= length else { return false }
        var hash = Self.hash(haystack[0..<length])
        var start = 0
        return filter.withUnsafeBufferPointer { filter in
            while true {
                let bit = (hash &* Self.spread) >> filterShift
                if filter[Int(bit >> 6)] & (1 << (bit & 63)) != 0, confirm(hash, at: start, in: haystack, isURL: isURL) {
                    return true
                }
                let end = start + length
                guard end < haystack.count else { return false }
                hash = (hash &- UInt64(haystack[start]) &* leavingWeight) &* Self.base &+ UInt64(haystack[end])
                start += 1
            }
        }
    }

    /// Whether a needle with `hash` really is the window at `start` (bytes compared).
    private func confirm(_ hash: UInt64, at start: Int, in haystack: UnsafeBufferPointer<UInt8>, isURL: Bool) -> Bool {
        var candidate = firstWithHash[hash] ?? -1
        let window = haystack[start..<start + length]
        while candidate >= 0 {
            let index = Int(candidate)
            if (!isURL || inURL[index]), bytes[index * length..<(index + 1) * length].elementsEqual(window) { return true }
            candidate = nextWithSameHash[index]
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
