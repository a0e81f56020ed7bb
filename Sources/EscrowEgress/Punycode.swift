/// Punycode (RFC 3492) encoding of one domain label, for internationalized domain names: the
/// Public Suffix List writes some suffixes in Unicode (`公司.cn`), hosts may come either way, and
/// the escrow compares them in one form, the ASCII one (`xn--55qx5d.cn`).
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128

    /// The ASCII form of `label`: unchanged when it is ASCII, else `xn--` and its Punycode.
    /// Nil when the label cannot be encoded (an overflow, which only absurdly long labels reach).
    static func asciiLabel(_ label: Substring) -> String? {
        if label.utf8.allSatisfy({ $0 < 0x80 }) { return String(label) }
        guard let encoded = encode(Array(label.unicodeScalars.map(\.value))) else { return nil }
        return "xn--" + encoded
    }

    private static func encode(_ input: [UInt32]) -> String? {
        var output: [UInt8] = input.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var n = UInt32(initialN), delta = 0, bias = initialBias
        while handled < input.count {
            guard let next = input.filter({ $0 >= n }).min() else { return nil }
            let (scaled, overflow) = Int(next - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - scaled else { return nil }
            delta += scaled
            n = next
            for scalar in input {
                if scalar < n {
                    delta += 1
                    guard delta <= Int(Int32.max) else { return nil }
                }
                guard scalar == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, count: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func digit(_ value: Int) -> UInt8 {
        value < 26 ? UInt8(value) + UInt8(ascii: "a") : UInt8(value - 26) + UInt8(ascii: "0")
    }

    private static func adapt(_ delta: Int, count: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
