import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// `escrow-platform --listen HOST:PORT`: a small HTTP service on loopback standing in for the
/// example apps' own backends. Compute functions reach it only through the escrow's network
/// client. Prints "listening on HOST:PORT" when ready; stops on SIGTERM/SIGINT.
///
///   GET /weather?latitude=L&longitude=M  →  {"temperature": T, "condition": "…"}
///   GET /articles?south=S&west=W&north=N&east=E  →  [{"title", "latitude", "longitude"}, …] inside the box
///   POST /directory/match  [sha256(digits), …]  →  the hashes of registered users' numbers
///   POST /collect  {"event": "…"}  →  {"ok": true}: an app's usage-analytics endpoint
///   GET /stats  →  {"requests": {PATH: N, …}, "weather": [{"latitude", "longitude", "temperature"}, …]}:
///                  what the service has seen so far (the last 1,000 weather lookups), so a test
///                  can count the requests one run makes
@main
enum PlatformService {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, arguments[1] == "--listen", let colon = arguments[2].lastIndex(of: ":"),
              let port = Int(arguments[2][arguments[2].index(after: colon)...]) else {
            FileHandle.standardError.write(Data("usage: escrow-platform --listen HOST:PORT\n".utf8))
            exit(64)
        }
        let host = String(arguments[2][..<colon])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(PlatformHandler())
                }
            }
            .bind(host: host, port: port).get()
        FileHandle.standardOutput.write(Data("listening on \(host):\(channel.localAddress?.port ?? port)\n".utf8))
        try await channel.closeFuture.get()
    }
}

/// Answers one request per call from the request line alone.
final class PlatformHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    /// The places the article service knows: (title, latitude, longitude).
    static let articles: [(String, Double, Double)] = [
        ("University of Chicago", 41.7886, -87.5987), ("Museum of Science and Industry", 41.7906, -87.5831),
        ("Willis Tower", 41.8789, -87.6359), ("Millennium Park", 41.8826, -87.6226),
        ("Brandenburg Gate", 52.5163, 13.3777), ("Berlin Cathedral", 52.5191, 13.4010),
        ("Alexanderplatz", 52.5219, 13.4132), ("Museum Island", 52.5169, 13.4019),
        ("Belém Tower", 38.6916, -9.2160), ("Eiffel Tower", 48.8584, 2.2945),
    ]

    /// The numbers (digits only) of the service's registered users, hashed as clients send them.
    static let directory: Set<String> = Set(["5555550111", "5555550121", "49305550104", "5555550181", "905555550251"].map { digits in
        SHA256.hash(data: Array(digits.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    })

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
            body = []
        case .body(var chunk):
            if body.count < 1 << 20, let bytes = chunk.readBytes(length: chunk.readableBytes) { body += bytes }
        case .end:
            guard let head else { return }
            let (status, body) = Self.answer(head, body: self.body)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(body.utf8.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            self.head = nil
        }
    }

    /// What the service has seen: requests per path, and the weather lookups it answered.
    static let seen = Mutex<(requests: [String: Int], weather: [(latitude: Double, longitude: Double, temperature: Double)])>(([:], []))

    static func answer(_ head: HTTPRequestHead, body: [UInt8]) -> (HTTPResponseStatus, String) {
        let components = URLComponents(string: head.uri)
        let path = components?.path ?? ""
        // Known paths by name, anything else as "other": a path is never echoed into the JSON.
        let counted = ["/weather", "/articles", "/directory/match", "/collect"].contains(path) ? path : "other"
        if path != "/stats" { seen.withLock { $0.requests[counted, default: 0] += 1 } }
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        switch (head.method, components?.path) {
        case (.GET, "/weather"):
            guard let latitude = query["latitude"].flatMap(Double.init), let longitude = query["longitude"].flatMap(Double.init),
                  (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                return (.badRequest, #"{"error": "latitude and longitude are required"}"#)
            }
            // A deterministic stand-in for a forecast: warmer near the equator, varying with longitude.
            let temperature = ((28 - abs(latitude) * 0.4 + sin(longitude * .pi / 180) * 3) * 10).rounded() / 10
            let conditions = ["sunny", "cloudy", "rain", "windy"]
            let condition = conditions[Int(abs(latitude * 7 + longitude * 3)) % conditions.count]
            seen.withLock { seen in
                seen.weather.append((latitude, longitude, temperature))
                if seen.weather.count > 1000 { seen.weather.removeFirst(seen.weather.count - 1000) }
            }
            return (.ok, #"{"temperature": \#(temperature), "condition": "\#(condition)"}"#)
        case (.GET, "/articles"):
            guard let south = query["south"].flatMap(Double.init), let west = query["west"].flatMap(Double.init),
                  let north = query["north"].flatMap(Double.init), let east = query["east"].flatMap(Double.init) else {
                return (.badRequest, #"{"error": "south, west, north and east are required"}"#)
            }
            let inside = articles.filter { $0.1 >= south && $0.1 <= north && $0.2 >= west && $0.2 <= east }
            return (.ok, "[" + inside.map { #"{"title": "\#($0.0)", "latitude": \#($0.1), "longitude": \#($0.2)}"# }
                .joined(separator: ",") + "]")
        case (.POST, "/directory/match"):
            guard let hashes = try? JSONDecoder().decode([String].self, from: Data(body)) else {
                return (.badRequest, #"{"error": "expected a JSON array of hashes"}"#)
            }
            let known = hashes.filter(directory.contains).sorted()
            return (.ok, "[" + known.map { "\"\($0)\"" }.joined(separator: ",") + "]")
        case (.POST, "/collect"):
            return (.ok, #"{"ok": true}"#)
        case (.GET, "/stats"):
            let (requests, weather) = seen.withLock { ($0.requests, $0.weather) }
            let counts = requests.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
            let lookups = weather.map { #"{"latitude": \#($0.latitude), "longitude": \#($0.longitude), "temperature": \#($0.temperature)}"# }
            return (.ok, #"{"requests": {\#(counts)}, "weather": [\#(lookups.joined(separator: ", "))]}"#)
        default:
            return (.notFound, #"{"error": "not found"}"#)
        }
    }
}
