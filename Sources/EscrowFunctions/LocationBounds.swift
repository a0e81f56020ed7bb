import EscrowCore

/// The box around the places read, widened outward to a grid of `decimals` decimal digits of a
/// degree, and how many places there were: where someone moved around, never a place itself.
///
/// Its twin in WebAssembly is the example compute module Examples/Modules/location-bounds
/// (`example.location-bounds`, in C): the same computation, step for step, so the two give the
/// same output bit for bit (a test checks it) and benchmarks compare a module with native code.
///
/// Parameters: `decimals`, 0 to 6 (default 2, about a kilometre).
public struct LocationBounds: ComputeFunction {
    public static let id = "location.bounds"
    public static let version = 1
    public static let summary = "Gives the app the box around the places read, widened to a grid of a few decimal digits, and how many there were; never a place itself."
    public static let inputs = InputContract.columns([
        InputColumn("latitude", .double, .int64),
        InputColumn("longitude", .double, .int64),
    ])
    public static let parameters = [
        ParameterDeclaration("decimals", .number(0...6), summary: "the grid the box is widened to, in decimal digits of a degree (default 2, about 1 km)"),
    ]
    public static let codeDigest = SourceDigest.of(#fileID)

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
