import EscrowCore

/// The Swift twin of the example C module Examples/Modules/location-bounds (example.location-bounds):
/// the same computation as a native compute function, so tests can check that the module gives the
/// same output and benchmarks can compare the two.
public struct LocationBounds: ComputeFunction {
    public static let id = "test.location-bounds"
    public static let version = 1
    public static let summary = "Gives the app the box around the places read, widened to a grid of a few decimal digits, and how many there were."
    public static let inputs = InputContract.columns([
        InputColumn("latitude", .double, .int64),
        InputColumn("longitude", .double, .int64),
    ])
    public static let parameters = [
        ParameterDeclaration("decimals", .number(0...6), summary: "the grid the box is widened to, in decimal digits"),
    ]
    public static let codeDigest = String(repeating: "b", count: 64)

    public init() {}

    public func compute(_ input: Frame, context: ComputeContext) throws -> Frame {
        var scale = 1.0
        for _ in 0..<Int(try context.parameters.double("decimals", default: 2)) { scale *= 10 }
        let latitudes = try input.column("latitude")
        let longitudes = try input.column("longitude")
        var south = 0.0, west = 0.0, north = 0.0, east = 0.0
        var count: Int64 = 0
        for row in 0..<input.rowCount {
            guard let latitude = latitudes.double(at: row), let longitude = longitudes.double(at: row) else { continue }
            if count == 0 || latitude < south { south = latitude }
            if count == 0 || latitude > north { north = latitude }
            if count == 0 || longitude < west { west = longitude }
            if count == 0 || longitude > east { east = longitude }
            count += 1
        }
        let box = [(south * scale).rounded(.down) / scale, (west * scale).rounded(.down) / scale,
                   (north * scale).rounded(.up) / scale, (east * scale).rounded(.up) / scale]
        var columns = zip(["south", "west", "north", "east"], box).map { name, value in
            var builder = ColumnBuilder(name: name, type: .double)
            if count == 0 { builder.appendNull() } else { builder.append(value) }
            return builder.build()
        }
        var places = ColumnBuilder(name: "places", type: .int64)
        places.append(count)
        columns.append(places.build())
        return try Frame(columns: columns)
    }
}
