import EscrowCore
import EscrowEgress
import EscrowSockets
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The escrow's network client for compute functions: HTTP/1.1 over SwiftNIO, TLS through
/// NIOSSL for `https` (the system's trust roots, plus an optional extra CA), one connection per
/// request, with one deadline for the whole exchange and a cap on the response size. The escrow
/// host and the compute server each hand one to the functions they run; this is the one place
/// outbound traffic of compute code goes through.
///
/// Built on the NIO the escrow already runs on rather than URLSession, which on Linux loads
/// libcurl and its TLS, Kerberos and other libraries into every escrow process.
///
/// Thread safety: a value; `send` may be called from any task concurrently.
public struct HTTPNetworkClient: NetworkClient {
    private let timeout: Duration
    private let maximumResponseBytes: Int
    /// The TLS context for `https`, or why it could not be made (then only `https` fails).
    private let tls: Result<NIOSSLContext, any Error>
    /// Addresses to connect to instead of resolving a host's name (normalized host → IP literal).
    private let addresses: [String: String]

    /// - Parameters:
    ///   - timeout: connecting, sending and receiving the whole response must fit in it.
    ///   - maximumResponseBytes: a longer response body fails the request.
    ///   - certificateAuthority: a PEM file of CA certificates trusted besides the system's (a
    ///     service with a private CA). When it cannot be read, `https` requests fail saying so.
    ///   - resolve: hosts to reach at a fixed address instead of through DNS (curl's `--resolve`):
    ///     the request still names the host (`Host` header, TLS server name), only the connection
    ///     goes to the address. Tests map their service names to 127.0.0.1 this way.
    public init(timeout: Duration = .seconds(10), maximumResponseBytes: Int = 16 * 1024 * 1024,
                certificateAuthority: String? = nil, resolve: HostResolution = HostResolution()) {
        self.timeout = timeout
        self.addresses = resolve.addresses
        self.maximumResponseBytes = maximumResponseBytes
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let certificateAuthority {
            configuration.additionalTrustRoots = [.file(certificateAuthority)]
        }
        tls = Result { try NIOSSLContext(configuration: configuration) }
    }

    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        guard let url = RequestURL(request.url) else {
            throw ComputeError.serviceFailed("'\(request.url)' is not an http(s) URL with a valid host")
        }
        let host = url.host
        do {
            return try await exchange(request, host: host, connectTo: addresses[url.hostName.text] ?? host, port: url.port,
                                      target: url.target, secure: url.isSecure)
        } catch let error as ComputeError {
            throw error
        } catch {
            throw ComputeError.serviceFailed("\(host): \(error)")
        }
    }

    private func exchange(_ request: NetworkRequest, host: String, connectTo address: String, port: Int, target: String,
                          secure: Bool) async throws -> NetworkResponse {
        let tls = secure ? try self.tls.get() : nil
        // One deadline for connecting, sending and receiving: a slow connect leaves less time to answer.
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = eventLoop.makePromise(of: NetworkResponse.self)
        let collector = ResponseCollector(promise: promise, maximumBytes: maximumResponseBytes, host: host)
        let isIPAddress = HostAddress.isIPLiteral(host)
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: port == (secure ? 443 : 80) ? host : "\(host):\(port)")
        headers.add(name: "User-Agent", value: "escrow")
        headers.add(name: "Connection", value: "close")
        for (name, value) in request.headers { headers.replaceOrAdd(name: name, value: value) }
        headers.replaceOrAdd(name: "Content-Length", value: String(request.body.count))
        let head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method), uri: target, headers: headers)
        let body = request.body
        // Connect, then send from the event loop itself: the caller's task is not resumed in
        // between, so a busy thread pool in this process never eats into the service's time.
        ClientBootstrap(group: eventLoop)
            .connectTimeout(deadline - NIODeadline.now())
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        let handler = try NIOSSLClientHandler(context: tls, serverHostname: isIPAddress ? nil : host)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
            .connect(hostOrLiteral: address, port: port)
            .whenComplete { result in
                switch result {
                case .failure(let error):
                    promise.fail(error)
                case .success(let channel):
                    let expiry = channel.eventLoop.scheduleTask(deadline: deadline) {
                        promise.fail(ComputeError.serviceFailed("\(host) did not answer within \(timeout)"))
                        channel.close(promise: nil)
                    }
                    promise.futureResult.whenComplete { _ in
                        expiry.cancel()
                        channel.close(promise: nil)
                    }
                    channel.write(HTTPClientRequestPart.head(head), promise: nil)
                    if !body.isEmpty {
                        channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
                    }
                    channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                }
            }
        return try await promise.futureResult.get()
    }
}

/// Collects one HTTP response into a `NetworkResponse`, failing the promise when the response
/// is too large or the connection ends before it is complete.
private final class ResponseCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    // Only touched on the channel's event loop.
    private let promise: EventLoopPromise<NetworkResponse>
    private let maximumBytes: Int
    private let host: String
    private var status = 0
    private var body: [UInt8] = []

    init(promise: EventLoopPromise<NetworkResponse>, maximumBytes: Int, host: String) {
        self.promise = promise
        self.maximumBytes = maximumBytes
        self.host = host
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(var buffer):
            guard body.count + buffer.readableBytes <= maximumBytes else {
                promise.fail(ComputeError.serviceFailed("\(host) answered more than \(maximumBytes) bytes"))
                context.close(promise: nil)
                return
            }
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            promise.succeed(NetworkResponse(status: status, body: body))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ComputeError.serviceFailed("\(host) closed the connection before the response was complete"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(ComputeError.serviceFailed("\(host): \(error)"))
        context.close(promise: nil)
    }
}
