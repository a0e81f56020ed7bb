/// One figure: the spread of its repetitions, with the paper's number and our target in the
/// same unit.
struct FigureResult: Encodable, Sendable {
    let name: String
    /// "ms", "µs", "ns", "MB", "calls/s", "lookups/s", "requests/s" or "×" (a ratio of two figures taken in the same run).
    let unit: String
    let median: Double
    let min: Double
    let max: Double
    let repetitions: Int
    /// The paper's prototype (Table 2), when it reports this figure.
    let paper: Double?
    /// Our target, when we set one.
    let target: Double?
    /// Whether a larger value is better (throughput): then the target is a floor, not a ceiling.
    let higherIsBetter: Bool

    /// Summarises samples given in seconds, scaled to `unit` (a time unit).
    init(name: String, unit: Unit, seconds samples: [Double], paper: Double? = nil, target: Double? = nil) {
        self.init(name: name, unit: unit, values: samples.map { $0 * unit.perSecond }, paper: paper, target: target)
    }

    /// Summarises samples already in `unit` (ratios, rates, sizes, or times already scaled).
    init(name: String, unit: Unit, values samples: [Double], paper: Double? = nil, target: Double? = nil,
         higherIsBetter: Bool = false) {
        precondition(!samples.isEmpty, "a figure needs at least one repetition")
        self.higherIsBetter = higherIsBetter
        let scaled = samples.sorted()
        let middle = scaled.count / 2
        self.name = name
        self.unit = unit.rawValue
        median = scaled.count % 2 == 1 ? scaled[middle] : (scaled[middle - 1] + scaled[middle]) / 2
        min = scaled[0]
        max = scaled[scaled.count - 1]
        repetitions = scaled.count
        self.paper = paper
        self.target = target
    }

    /// Whether the median meets the target; nil without a target.
    var meetsTarget: Bool? { target.map { higherIsBetter ? median >= $0 : median <= $0 } }

    enum Unit: String, Sendable {
        case milliseconds = "ms"
        case microseconds = "µs"
        case nanoseconds = "ns"
        case megabytes = "MB"
        case callsPerSecond = "calls/s"
        case lookupsPerSecond = "lookups/s"
        case requestsPerSecond = "requests/s"
        case ratio = "×"

        /// Units per second, for time units; 1 for the others (their values are given as they are).
        var perSecond: Double {
            switch self {
            case .milliseconds: 1e3
            case .microseconds: 1e6
            case .nanoseconds: 1e9
            case .megabytes, .callsPerSecond, .lookupsPerSecond, .requestsPerSecond, .ratio: 1
            }
        }
    }
}
