import Escrow
import EscrowCore
import Foundation

/// `escrow-weather --service URL [--analytics URL] [--socket PATH]`: the paper's running example
/// written against the Escrow SDK. The app asks the escrow for the weather at the latest location;
/// the escrow sends the location to the weather service named by the app (the individual sees and
/// approves that) and gives the app only the weather. With `--analytics`, the function also tells
/// the app's analytics endpoint that the weather was viewed, as many apps do: the escrow records
/// that request, flags the tracker, and the individual may block it (the weather still comes).
///
/// The weather of a city is the weather of everyone in it, so the app asks for `city` accuracy:
/// the escrow gives the function the centre of the individual's nearest city, never their
/// position (docs/LOCATION.md). The individual sees that ask and may lower it further.
///
/// It links the SDK alone (`Escrow`, `EscrowCore`): no host, no SQLite, no photo libraries. It
/// names the function by id and reads the output columns it documents.
@main
enum WeatherApp {
    static func main() async {
        var service: String?
        var analytics: String?
        var socket: String?
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--service": service = arguments.next()
            case "--analytics": analytics = arguments.next()
            case "--socket": socket = arguments.next()
            default:
                FileHandle.standardError.write(Data("usage: escrow-weather --service URL [--analytics URL] [--socket PATH]\n".utf8))
                exit(64)
            }
        }
        guard let service else {
            FileHandle.standardError.write(Data("usage: escrow-weather --service URL [--analytics URL] [--socket PATH]\n".utf8))
            exit(64)
        }
        do throws(EscrowError) {
            let escrow = try await Escrow.connect(app: "org.example.weather", socket: socket)
            let weather = try await escrow.runFrame(
                access: "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
                compute: "weather.current", purpose: "Show the weather where you are",
                parameters: analytics.map { ["service": service, "analytics": $0] } ?? ["service": service],
                locationAccuracy: .city)
            await escrow.close()
            guard weather.rowCount == 1, let temperature = try? weather.column("temperature").double(at: 0),
                  let condition = try? weather.column("condition").string(at: 0) else {
                print("Weather: no location recorded yet")
                return
            }
            print("Weather where you are: \(temperature) °C, \(condition)")
        } catch {
            if let command = error.approvalCommand {
                print("This app needs your approval to use your location for the weather.")
                print("Review it with `escrow flows show \(command.split(separator: " ").last ?? "")`, then run: \(command)")
                exit(2)
            }
            FileHandle.standardError.write(Data("escrow-weather: \(error)\n".utf8))
            exit(1)
        }
    }
}
