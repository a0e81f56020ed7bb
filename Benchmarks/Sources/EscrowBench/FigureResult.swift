/// One figure: the spread of its repetitions, with the paper's number and our target in the
/// same unit.
struct FigureResult: Encodable, Sendable {
    let name: String
    /// "ms" or "µs".
    let unit: String
    let median: Double
    let min: Double
    let max: Double
    let repetitions: Int
    /// The paper's prototype (Table 2), when it reports this figure.
    let paper: Double?
    /// Our target, when we set one.
    let target: Double?

    /// Summarises samples given in seconds, scaled to `unit`.
    init(name: String, unit: Unit, seconds samples: [Double], paper: Double? = nil, target: Double? = nil) {
        precondition(!samples.isEmpty, "a figure needs at least one repetition")
        let scaled = samples.map { $0 * unit.perSecond }.sorted()
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
    var meetsTarget: Bool? { target.map { median <= $0 } }

    enum Unit: String, Sendable {
        case milliseconds = "ms"
        case microseconds = "µs"

        var perSecond: Double {
            switch self {
            case .milliseconds: 1e3
            case .microseconds: 1e6
            }
        }
    }
}
