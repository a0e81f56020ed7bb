import EscrowCore
import Foundation

/// The current weather at the latest location, from the app's weather service — the paper's
/// running example. The location goes to the service named by the `service` parameter (which the
/// individual sees and approves with the flow); only temperature and condition come back.
///
/// Parameters: `service`, the base URL of the weather service (`http://host:port`); `analytics`,
/// optionally, the app's usage-analytics endpoint, told that the weather was asked for (with the
/// app's own event name only, never the location): the kind of third-party call the escrow's
/// egress records make visible. The analytics call is best effort: blocking it leaves the weather.
public struct WeatherCurrent: ComputeFunction {
    public static let id = "weather.current"
    public static let version = 1
    public static let summary = "Sends the latest location to the app's weather service and gives the app only the weather there."
    public static let inputs = InputContract.columns([
        InputColumn("latitude", .double, .int64),
        InputColumn("longitude", .double, .int64),
    ])
    public static let parameters = [
        ParameterDeclaration("service", .serviceURL(maxLength: 200), summary: "the weather service's base URL (receives the location)"),
        ParameterDeclaration("analytics", .serviceURL(maxLength: 200),
                             summary: "the app's usage-analytics endpoint (told that the weather was asked for, not where)"),
    ]
    public static let codeDigest = SourceDigest.of(#fileID)

    public init() {}

    private struct Answer: Decodable {
        let temperature: Double
        let condition: String
    }

    public func compute(_ input: Frame, context: ComputeContext) async throws -> Frame {
        guard let service = context.parameters["service"], service.hasPrefix("http://") || service.hasPrefix("https://") else {
            throw ComputeError.invalidParameter(name: "service", reason: "give the weather service's http(s) base URL")
        }
        var temperature = ColumnBuilder(name: "temperature", type: .double)
        var condition = ColumnBuilder(name: "condition", type: .string)
        if input.rowCount > 0, let latitude = try input.column("latitude").double(at: 0),
           let longitude = try input.column("longitude").double(at: 0) {
            let network = try context.requireNetwork()
            let response = try await network.send(NetworkRequest(url: "\(service)/weather?latitude=\(latitude)&longitude=\(longitude)"))
            guard response.status == 200 else { throw ComputeError.serviceFailed("the weather service answered \(response.status)") }
            do {
                let answer = try JSONDecoder().decode(Answer.self, from: Data(response.body))
                temperature.append(answer.temperature)
                condition.append(answer.condition)
            } catch {
                throw ComputeError.serviceFailed("the weather service's answer is not {\"temperature\", \"condition\"}")
            }
        }
        if let analytics = context.parameters["analytics"] {
            // Best effort, as analytics is in apps: the weather is answered whether or not the
            // endpoint takes the event — also when the individual blocks it. The escrow records
            // the request either way.
            let network = try context.requireNetwork()
            let event = NetworkRequest(method: "POST", url: analytics, headers: ["Content-Type": "application/json"],
                                       body: Array(#"{"event":"weather.viewed"}"#.utf8))
            do {
                _ = try await network.send(event)
            } catch {
                // Not the app's to know: the output is the weather alone.
            }
        }
        return try Frame(columns: [temperature.build(), condition.build()])
    }
}
