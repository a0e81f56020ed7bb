/// A small deterministic random number generator (SplitMix64), so generated test data and
/// mutation tests are the same on every run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A value in 0..<1, every multiple of 2⁻⁵³ equally likely.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// A value in `0..<bound`; `bound` must be positive.
    public mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
