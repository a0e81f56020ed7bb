import EscrowCore
import Foundation

/// Articles about places near the latest location, from the app's article service — Wikipedia's
/// "nearby" flow. Only the surrounding grid cell (about 2 × radius wide) goes to the service,
/// never the point; the app gets the titles.
///
/// Parameters: `service`, the article service's base URL (receives the cell); `radius` in meters
/// (default 1000).
public struct ArticlesNearby: ComputeFunction {
    public static let id = "articles.nearby"
    public static let version = 1
    public static let summary = "Sends only the area around your latest location (not the point) to the app's article service and gives the app the titles."
    public static let inputs = InputContract.columns([
        InputColumn("latitude", .double, .int64),
        InputColumn("longitude", .double, .int64),
    ])
    public static let parameters = [
        ParameterDeclaration("service", .serviceURL(maxLength: 200), summary: "the article service's base URL (receives the area)"),
        ParameterDeclaration("radius", .number(100...100_000), summary: "half the width of the area, in meters (default 1000)"),
    ]
    public static let codeDigest = SourceDigest.of(#fileID)

    public init() {}

    private struct Article: Decodable {
        let title: String
    }

    public func compute(_ input: Frame, context: ComputeContext) async throws -> Frame {
        guard let service = context.parameters["service"], service.hasPrefix("http://") || service.hasPrefix("https://") else {
            throw ComputeError.invalidParameter(name: "service", reason: "give the article service's http(s) base URL")
        }
        let radius = try context.parameters.double("radius", default: 1000)
        var titles = ColumnBuilder(name: "title", type: .string)
        if input.rowCount > 0, let latitude = try input.column("latitude").double(at: 0),
           let longitude = try input.column("longitude").double(at: 0) {
            let cell = GridCell(latitude: latitude, longitude: longitude, radius: radius)
            let url = "\(service)/articles?south=\(cell.south)&west=\(cell.west)&north=\(cell.north)&east=\(cell.east)"
            let response = try await context.requireNetwork().send(NetworkRequest(url: url))
            guard response.status == 200, let articles = try? JSONDecoder().decode([Article].self, from: Data(response.body)) else {
                throw ComputeError.serviceFailed("the article service answered \(response.status) without a JSON array of articles")
            }
            for article in articles { titles.append(article.title) }
        }
        return try Frame(columns: [titles.build()])
    }
}
