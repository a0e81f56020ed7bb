import EscrowCore
import Foundation

/// Turns the latest location into the surrounding region of a radius — the Wikipedia "nearby
/// articles" flow. The region is a cell of a fixed grid (cells `2 × radius` wide) that contains
/// the point, so the output never reveals where inside the cell the point is: the precise
/// location stays in the escrow.
///
/// Parameters: `radius` in meters (default 1000, from 100 to 100000).
public struct LocationRegion: ComputeFunction {
    public static let id = "location.region"
    public static let version = 1
    public static let summary = "Gives the app only the grid cell (about 2 × radius wide) around the latest location, never the point itself."
    public static let inputs = InputContract.columns([
        InputColumn("latitude", .double, .int64),
        InputColumn("longitude", .double, .int64),
    ])
    public static let parameters = [
        ParameterDeclaration("radius", .number(100...100_000), summary: "half the width of the region, in meters (default 1000)"),
    ]
    public static let codeDigest = SourceDigest.of(#fileID)

    public init() {}

    public func compute(_ input: Frame, context: ComputeContext) throws -> Frame {
        let radius = try context.parameters.double("radius", default: 1000)
        let names = ["south", "west", "north", "east", "centerLatitude", "centerLongitude", "radius"]
        var builders = names.map { ColumnBuilder(name: $0, type: .double) }
        let latitudes = try input.column("latitude")
        let longitudes = try input.column("longitude")
        if input.rowCount > 0, let latitude = latitudes.double(at: 0), let longitude = longitudes.double(at: 0) {
            let cell = GridCell(latitude: latitude, longitude: longitude, radius: radius)
            for (index, value) in [cell.south, cell.west, cell.north, cell.east,
                                   (cell.south + cell.north) / 2, (cell.west + cell.east) / 2, radius].enumerated() {
                builders[index].append(value)
            }
        }
        return try Frame(columns: builders.map { $0.build() })
    }
}
