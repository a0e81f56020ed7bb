import Escrow
import EscrowCore
import EscrowFunctions
import Foundation

/// `escrow-nearby-articles --service URL [--radius METERS] [--socket PATH]`: Wikipedia's "nearby"
/// flow written against the Escrow SDK. The escrow sends only the area around the latest location
/// (never the point) to the article service; the app gets the titles. Articles within a kilometre
/// or so are what it shows, so it asks for `1km` accuracy: the function gets a point within 1 km
/// of the individual, the same one while they stay in a place (docs/LOCATION.md).
@main
enum NearbyArticlesApp {
    static func main() async {
        var service: String?
        var radius = "1000"
        var socket: String?
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--service": service = arguments.next()
            case "--radius": radius = arguments.next() ?? radius
            case "--socket": socket = arguments.next()
            default: usage()
            }
        }
        guard let service else { usage() }
        do throws(EscrowError) {
            let escrow = try await Escrow.connect(app: "org.wikipedia", socket: socket)
            let articles = try await escrow.run(
                access: "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1",
                compute: ArticlesNearby.self, purpose: "Show articles about places near you",
                parameters: ["service": service, "radius": radius],
                locationAccuracy: .radius(meters: 1000))
            await escrow.close()
            let titles = (0..<articles.rowCount).compactMap { try? articles.column("title").string(at: $0) }
            print(titles.isEmpty ? "No articles about places near you." : "Articles about places near you:")
            for title in titles { print("  \(title)") }
        } catch {
            if let command = error.approvalCommand {
                print("This app needs your approval to look up articles near you (it gets only the area, never your position).")
                print("Run: \(command)")
                exit(2)
            }
            FileHandle.standardError.write(Data("escrow-nearby-articles: \(error)\n".utf8))
            exit(1)
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: escrow-nearby-articles --service URL [--radius METERS] [--socket PATH]\n".utf8))
        exit(64)
    }
}
