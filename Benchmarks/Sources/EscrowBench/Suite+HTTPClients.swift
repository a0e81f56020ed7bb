import AsyncHTTPClient
import EscrowCore
import EscrowNetwork
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// AsyncHTTPClient behind the compute functions' `NetworkClient` protocol: what replacing our
/// client with it would look like (request mapped, whole body collected, same size cap).
struct AHCNetworkClient: NetworkClient {
    let client: HTTPClient
    let maximumResponseBytes = 16 * 1024 * 1024

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
        if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        let response = try await client.execute(outgoing, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: maximumResponseBytes)
        return NetworkResponse(status: Int(response.status.code), body: Array(buffer: body))
    }
}

// Issue 14, item 1: our HTTP client (`HTTPNetworkClient`, one connection per request) against
// AsyncHTTPClient 1.37.0, pooled and with a fresh connection per request, over a local server,
// in plain HTTP and in HTTPS (TLS 1.3, a P-256 certificate made for the run).
extension Suite {
    static let httpSequentialRequests = 500
    static let httpConcurrency = 8
    static let httpConcurrentRequests = 1000

    private struct HTTPSide {
        let name: String
        let client: any NetworkClient
        /// Whether the client should open one connection per request (checked on the server).
        let freshConnections: Bool
    }

    private struct HTTPSample {
        var sequential: [Double] = []
        var concurrent: [Double] = []
    }

    /// Per repetition, each client in turn (the order rotating between repetitions): 500 GETs of
    /// a 41-byte body one after another, then 1000 by 8 tasks at once. Reports µs per request
    /// (sequential) and requests per second (8 concurrent), and the ratios of ours to each AHC
    /// configuration. Before, untimed: which client follows a redirect by itself.
    func httpClients() async throws -> [FigureResult] {
        var results = try await httpClients(tls: nil)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-bench-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        if let certificate = try Self.selfSignedCertificate(in: folder) {
            results += try await httpClients(tls: certificate)
        } else {
            print("https: openssl not found; the HTTPS comparison is left out")
        }
        return results
    }

    /// A self-signed certificate for 127.0.0.1 (P-256), its key and a server context, made with
    /// the `openssl` command; nil when there is none.
    struct LocalCertificate {
        let certificatePath: String
        let server: NIOSSLContext
    }

    static func selfSignedCertificate(in folder: URL) throws -> LocalCertificate? {
        guard let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return nil
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                             "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
                             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("openssl req exited \(process.terminationStatus)") }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        return LocalCertificate(certificatePath: certificate, server: try NIOSSLContext(configuration: configuration))
    }

    /// The comparison over plain HTTP (`tls` nil) or HTTPS with `tls`'s certificate trusted.
    private func httpClients(tls: LocalCertificate?) async throws -> [FigureResult] {
        let server = try await LocalHTTPServer.start(tls: tls?.server)
        let group = MultiThreadedEventLoopGroup.singleton
        var pooledConfiguration = HTTPClient.Configuration()
        if let tls {
            var client = TLSConfiguration.makeClientConfiguration()
            client.additionalTrustRoots = [.file(tls.certificatePath)]
            pooledConfiguration.tlsConfiguration = client
        }
        var freshConfiguration = pooledConfiguration
        freshConfiguration.maximumUsesPerConnection = 1
        let pooled = HTTPClient(eventLoopGroup: group, configuration: pooledConfiguration)
        let fresh = HTTPClient(eventLoopGroup: group, configuration: freshConfiguration)
        do {
            let results = try await compareHTTPClients(server: server, scheme: tls == nil ? "http" : "https", sides: [
                HTTPSide(name: "HTTPNetworkClient (ours, new connection each)",
                         client: HTTPNetworkClient(certificateAuthority: tls?.certificatePath), freshConnections: true),
                HTTPSide(name: "AsyncHTTPClient, pooled (keep-alive)", client: AHCNetworkClient(client: pooled), freshConnections: false),
                HTTPSide(name: "AsyncHTTPClient, new connection each", client: AHCNetworkClient(client: fresh), freshConnections: true),
            ])
            try await pooled.shutdown()
            try await fresh.shutdown()
            try await server.stop()
            return results
        } catch {
            try? await pooled.shutdown()
            try? await fresh.shutdown()
            try? await server.stop()
            throw error
        }
    }

    private func compareHTTPClients(server: LocalHTTPServer, scheme: String, sides: [HTTPSide]) async throws -> [FigureResult] {
        let base = "\(scheme)://127.0.0.1:\(server.port)"
        let label = scheme.uppercased()
        let url = "\(base)/weather?latitude=41.7886&longitude=-87.5987"
        // Redirects: ours hands the 302 to the function; AHC follows it inside one call.
        for side in sides {
            let before = server.counts.requests
            let response = try await side.client.send(NetworkRequest(url: "\(base)/redirect"))
            print("\(label) redirect: \(side.name): one call answered \(response.status) after \(server.counts.requests - before) request(s) reached the server")
        }
        let clock = ContinuousClock()
        var repetition = 0
        var connections = [Int](repeating: 0, count: sides.count)
        let samples = try await sampler.collect(
            setUp: { () },
            body: { _ -> HTTPSample in
                var sample = HTTPSample(sequential: Array(repeating: 0, count: sides.count),
                                        concurrent: Array(repeating: 0, count: sides.count))
                for offset in 0..<sides.count {
                    let index = (repetition + offset) % sides.count
                    let side = sides[index]
                    let before = server.counts
                    let sequential = try await clock.measure {
                        for _ in 0..<Self.httpSequentialRequests { try await Self.get(url, side.client) }
                    }
                    let concurrent = try await clock.measure {
                        try await withThrowingTaskGroup(of: Void.self) { tasks in
                            for _ in 0..<Self.httpConcurrency {
                                tasks.addTask {
                                    for _ in 0..<(Self.httpConcurrentRequests / Self.httpConcurrency) { try await Self.get(url, side.client) }
                                }
                            }
                            try await tasks.waitForAll()
                        }
                    }
                    let after = server.counts
                    let requests = Self.httpSequentialRequests + Self.httpConcurrentRequests
                    guard after.requests - before.requests == requests else {
                        throw BenchError("\(side.name): the server saw \(after.requests - before.requests) requests, not \(requests)")
                    }
                    let opened = after.connections - before.connections
                    if side.freshConnections ? opened < requests : opened > 4 * Self.httpConcurrency {
                        throw BenchError("\(side.name): \(opened) connections for \(requests) requests")
                    }
                    connections[index] += opened
                    sample.sequential[index] = sequential.seconds / Double(Self.httpSequentialRequests)
                    sample.concurrent[index] = Double(Self.httpConcurrentRequests) / concurrent.seconds
                }
                repetition += 1
                return sample
            },
            tearDown: { _ in }
        )
        for (index, side) in sides.enumerated() {
            print("\(label) connections: \(side.name): \(connections[index]) opened for "
                  + "\((sampler.warmUps + sampler.repetitions) * (Self.httpSequentialRequests + Self.httpConcurrentRequests)) requests")
        }
        var results: [FigureResult] = []
        for (index, side) in sides.enumerated() {
            results.append(FigureResult(name: "\(label) GET 41 B, sequential: \(side.name)", unit: .microseconds,
                                        seconds: samples.map { $0.sequential[index] }))
        }
        for (index, side) in sides.enumerated() {
            results.append(FigureResult(name: "\(label) GET 41 B, 8 concurrent: \(side.name)", unit: .requestsPerSecond,
                                        values: samples.map { $0.concurrent[index] }, higherIsBetter: true))
        }
        for index in sides.indices.dropFirst() {
            results.append(FigureResult(name: "\(label) GET, sequential: time per request, ours / \(sides[index].name)", unit: .ratio,
                                        values: samples.map { $0.sequential[0] / $0.sequential[index] }))
            results.append(FigureResult(name: "\(label) GET, 8 concurrent: throughput, ours / \(sides[index].name)", unit: .ratio,
                                        values: samples.map { $0.concurrent[0] / $0.concurrent[index] }))
        }
        return results
    }

    private static func get(_ url: String, _ client: any NetworkClient) async throws {
        let response = try await client.send(NetworkRequest(url: url))
        guard response.status == 200, response.body.count == LocalHTTPServer.body.utf8.count else {
            throw BenchError("GET \(url) answered \(response.status) with \(response.body.count) bytes")
        }
    }
}
