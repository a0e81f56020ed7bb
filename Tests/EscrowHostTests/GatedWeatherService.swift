import EscrowTestSupport
import Foundation
import NIOCore
import NIOPosix

/// A weather service on 127.0.0.1 that answers `GET /weather?latitude=L&longitude=M` as the
/// platform service does (`{"temperature", "condition"}`) for the points `answers` accepts, and
/// `503 Service Unavailable` for the others: a service that fails some of a k-anonymous run's
/// requests and not the rest. One request per connection, closed after the response.
///
/// Thread safety: `Sendable`; `stop()` once, when done.
final class GatedWeatherService: Sendable {
    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts it on a free port.
    ///
    /// - Parameter answers: whether the point asked for gets the weather (else a 503).
    static func start(answering answers: @escaping @Sendable (_ latitude: Double, _ longitude: Double) -> Bool) async throws
        -> GatedWeatherService {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(GatedWeatherHandler(answers: answers))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw FixtureError("the weather service has no port") }
        return GatedWeatherService(port: port, channel: channel)
    }

    func stop() async throws {
        try await channel.close()
    }
}

/// Reads one request head, answers it, closes the connection.
private final class GatedWeatherHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answers: @Sendable (Double, Double) -> Bool
    private var received: [UInt8] = []
    private var answered = false

    init(answers: @escaping @Sendable (Double, Double) -> Bool) {
        self.answers = answers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        var buffer = unwrapInboundIn(data)
        received += buffer.readBytes(length: buffer.readableBytes) ?? []
        let head = String(decoding: received, as: UTF8.self)
        guard head.contains("\r\n\r\n"), let requestLine = head.split(separator: "\r\n").first else { return }
        answered = true
        let (status, body) = answer(String(requestLine))
        let response = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(body)"
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(string: response))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// `GET /weather?latitude=L&longitude=M HTTP/1.1` → the status line's end and the body.
    private func answer(_ requestLine: String) -> (status: String, body: String) {
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", let components = URLComponents(string: String(parts[1])),
              components.path == "/weather",
              let latitude = components.queryItems?.first(where: { $0.name == "latitude" })?.value.flatMap(Double.init),
              let longitude = components.queryItems?.first(where: { $0.name == "longitude" })?.value.flatMap(Double.init) else {
            return ("400 Bad Request", #"{"error": "GET /weather?latitude=L&longitude=M"}"#)
        }
        guard answers(latitude, longitude) else { return ("503 Service Unavailable", #"{"error": "unavailable here"}"#) }
        return ("200 OK", #"{"temperature": 4.5, "condition": "clear"}"#)
    }
}
