/// A value axis for a bar chart: from 0 to a round maximum at or above the largest value, with
/// round ticks (steps of 1, 2 or 5 times a power of ten) a reader can take in at a glance.
///
/// Thread safety: a value.
struct ChartScale: Sendable, Hashable {
    /// The value at the far end of the axis (the top, or the right).
    let maximum: Int
    /// The distance between two ticks.
    let step: Int

    /// A scale for values from 0 to `largest` with about `ticks` intervals.
    init(largest: Int, ticks: Int = 5) {
        let target = max(largest, 1)
        let intervals = max(ticks, 1)
        let rough = max(1, (target + intervals - 1) / intervals)
        var power = 1
        while power <= rough / 10 { power *= 10 }
        let step = [1, 2, 5].map { $0 * power }.first { $0 >= rough } ?? 10 * power
        self.step = step
        self.maximum = (target + step - 1) / step * step
    }

    /// The tick values from 0 to `maximum`.
    var ticks: [Int] { Array(stride(from: 0, through: maximum, by: step)) }

    /// Where `value` falls along an axis `length` long, from its start.
    func position(_ value: Int, length: Double) -> Double {
        Double(value) / Double(maximum) * length
    }
}
