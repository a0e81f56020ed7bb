/// Builds one `Column` cell by cell, settling its type from the values it sees.
///
/// The type is the declared type when one is given, otherwise the type of the first non-null
/// value. Mixed values widen: an integer arriving in a double column becomes a double, a double
/// arriving in an integer column turns the column into doubles, and any other mix turns the
/// column into text, so a query never fails because an expression mixes types.
public struct ColumnBuilder: Sendable {
    public let name: String
    private(set) var type: ColumnType?
    private var ints: [Int64] = []
    private var doubles: [Double] = []
    private var strings: [String] = []
    private var blobs: [[UInt8]] = []
    private var bools: [Bool] = []
    private var nulls: [Bool] = []
    private var hasNull = false
    private var count = 0

    /// Creates a builder; `type` fixes the column type in advance (for declared columns).
    public init(name: String, type: ColumnType? = nil, capacity: Int = 0) {
        self.name = name
        self.type = type
        if let type { reserve(type, capacity) }
    }

    private mutating func reserve(_ type: ColumnType, _ capacity: Int) {
        guard capacity > 0 else { return }
        switch type {
        case .int64: ints.reserveCapacity(capacity)
        case .double: doubles.reserveCapacity(capacity)
        case .string: strings.reserveCapacity(capacity)
        case .bytes: blobs.reserveCapacity(capacity)
        case .bool: bools.reserveCapacity(capacity)
        }
    }

    /// Appends a null cell.
    public mutating func appendNull() {
        if !hasNull {
            nulls = [Bool](repeating: false, count: count)
            hasNull = true
        }
        nulls.append(true)
        count += 1
        switch type {
        case .int64: ints.append(0)
        case .double: doubles.append(0)
        case .string: strings.append("")
        case .bytes: blobs.append([])
        case .bool: bools.append(false)
        case nil: break
        }
    }

    /// Appends an integer cell.
    public mutating func append(_ value: Int64) {
        switch type {
        case .int64: ints.append(value)
        case .double: doubles.append(Double(value))
        case .bool: bools.append(value != 0)
        case .string: strings.append(String(value))
        case nil: adopt(.int64); ints.append(value)
        case .bytes: widenToText(); strings.append(String(value))
        }
        noteValue()
    }

    /// Appends a floating-point cell.
    public mutating func append(_ value: Double) {
        switch type {
        case .double: doubles.append(value)
        case .int64, .bool: widenToDouble(); doubles.append(value)
        case .string: strings.append(String(value))
        case nil: adopt(.double); doubles.append(value)
        case .bytes: widenToText(); strings.append(String(value))
        }
        noteValue()
    }

    /// Appends a text cell.
    public mutating func append(_ value: String) {
        switch type {
        case .string: strings.append(value)
        case nil: adopt(.string); strings.append(value)
        default: widenToText(); strings.append(value)
        }
        noteValue()
    }

    /// Appends a bytes cell.
    public mutating func append(bytes value: [UInt8]) {
        switch type {
        case .bytes: blobs.append(value)
        case nil: adopt(.bytes); blobs.append(value)
        default: widenToText(); strings.append(String(decoding: value, as: UTF8.self))
        }
        noteValue()
    }

    /// Appends a boolean cell.
    public mutating func append(_ value: Bool) {
        switch type {
        case .bool: bools.append(value)
        case .int64: ints.append(value ? 1 : 0)
        case .double: doubles.append(value ? 1 : 0)
        case nil: adopt(.bool); bools.append(value)
        default: widenToText(); strings.append(value ? "1" : "0")
        }
        noteValue()
    }

    /// Appends any cell.
    public mutating func append(_ value: FrameValue?) {
        switch value {
        case nil: appendNull()
        case .int64(let x): append(x)
        case .double(let x): append(x)
        case .string(let x): append(x)
        case .bytes(let x): append(bytes: x)
        case .bool(let x): append(x)
        }
    }

    private mutating func noteValue() {
        count += 1
        if hasNull { nulls.append(false) }
    }

    /// First non-null value of an untyped column: earlier nulls get placeholders of `type`.
    private mutating func adopt(_ newType: ColumnType) {
        type = newType
        let placeholders = count
        switch newType {
        case .int64: ints = [Int64](repeating: 0, count: placeholders)
        case .double: doubles = [Double](repeating: 0, count: placeholders)
        case .string: strings = [String](repeating: "", count: placeholders)
        case .bytes: blobs = [[UInt8]](repeating: [], count: placeholders)
        case .bool: bools = [Bool](repeating: false, count: placeholders)
        }
    }

    private mutating func widenToDouble() {
        switch type {
        case .int64: doubles = ints.map(Double.init); ints = []
        case .bool: doubles = bools.map { $0 ? 1 : 0 }; bools = []
        default: return
        }
        type = .double
    }

    private mutating func widenToText() {
        let column = build()
        strings = (0..<count).map { row in
            switch column.value(at: row) {
            case nil: ""
            case .int64(let x): String(x)
            case .double(let x): String(x)
            case .string(let x): x
            case .bytes(let x): String(decoding: x, as: UTF8.self)
            case .bool(let x): x ? "1" : "0"
            }
        }
        ints = []; doubles = []; blobs = []; bools = []
        type = .string
    }

    /// The finished column. A column that only ever saw nulls is a text column of nulls.
    public func build() -> Column {
        let values: ColumnValues
        switch type {
        case .int64: values = .int64(ints)
        case .double: values = .double(doubles)
        case .string: values = .string(strings)
        case .bytes: values = .bytes(blobs)
        case .bool: values = .bool(bools)
        case nil: values = .string([String](repeating: "", count: count))
        }
        return Column(name: name, values: values, nulls: hasNull ? nulls : [])
    }
}
