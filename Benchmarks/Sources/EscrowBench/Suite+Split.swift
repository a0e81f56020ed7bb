import EscrowComputeRuntime
import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowWire
import EscrowStore
import Foundation
import Logging
import NIOPosix

// The paper's Figure 4: the photo-labelling flow run on the device and on a compute server for
// 10, 100 and 1000 pictures of 16 KB, split into transfer and compute, with a raw TLS transfer
// of the same bytes as the floor for the transfer.
extension Suite {
    static let splitPictureCounts = [10, 100, 1000]

    private struct SplitFixture {
        let scratch: ScratchHome
        let host: EscrowHost
        let server: ComputeServer
        let link: RawTLSLink
        /// The flow's access() result, read on a plain connection.
        let input: Frame

        func close() async {
            await link.close()
            await server.shutdown()
        }
    }

    /// One sample: means per call, in seconds, and the bytes one remote call moved.
    private struct SplitSample {
        var deviceRun = 0.0
        var deviceCompute = 0.0
        var serverRun = 0.0
        /// The RPC round trip inside run() (the audit entry's serverLatencyMs).
        var serverRPC = 0.0
        /// The server's time in the function, as it reported (the audit entry's serverComputeMs).
        var serverCompute = 0.0
        var rawTLS = 0.0
        var bytesSent = 0
        var bytesReceived = 0
    }

    /// Figure 4 for each picture count in `splitPictureCounts`.
    func split() async throws -> [FigureResult] {
        let certificates = try Self.certificates()
        defer { try? FileManager.default.removeItem(at: certificates) }
        var results: [FigureResult] = []
        for count in Self.splitPictureCounts {
            results += try await split(pictures: count, certificates: certificates)
        }
        return results
    }

    /// Per repetition: a fresh home with `count` pictures of 16 KB imported, an in-process
    /// compute server on 127.0.0.1 registered to the host as `compute-1` (mutual TLS 1.3, the
    /// certificates of certs/make-dev-certs.sh), both flows approved and run once (untimed, the
    /// device and server outputs compared). Then, `calls` times in turn: run() on the device,
    /// the function called directly on the same frame, run() on the server, a direct call on
    /// the server (for its compute time), and a raw TLS round trip of the bytes that call moved.
    /// Transfer is that direct call's round trip less the compute time its reply reports; the
    /// ratio divides it by the raw TLS round trip (target ≤ 1.3).
    private func split(pictures count: Int, certificates: URL) async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let logger = self.logger
        let folder = try PictureGenerator.folder(count)
        defer { try? FileManager.default.removeItem(at: folder) }
        let labels = try EscrowFunctions.catalog.function(PhotosLabels.id)
        let device = DataflowRequest(app: "org.example.labels", purpose: "label my pictures",
                                     access: Self.photosSQL, compute: PhotosLabels.id)
        let remote = DataflowRequest(app: device.app, purpose: device.purpose, access: device.access,
                                     compute: device.compute, destination: .server("compute-1"))
        let calls = count >= 1000 ? 2 : count >= 100 ? 4 : 10

        /// The untimed check, then `calls` rounds of the five measurements.
        func measure(_ fixture: SplitFixture) async throws -> SplitSample {
            let onDevice = try await fixture.host.run(device).output
            let onServer = try await fixture.host.run(remote).output
            let widths = try onDevice.column("width")
            guard onDevice == onServer, onDevice.rowCount == count,
                  (0..<count).allSatisfy({ widths.int64(at: $0) == Int64(PictureGenerator.width) }) else {
                throw BenchError("\(count) pictures: the device and the server disagree, or a picture was not decoded")
            }
            var sample = SplitSample()
            for _ in 0..<calls {
                sample.deviceRun += try await clock.measure { _ = try await fixture.host.run(device) }.seconds
                sample.deviceCompute += try await clock.measure {
                    _ = try await labels(fixture.input, context: ComputeContext())
                }.seconds
                var entry: AuditDraft?
                sample.serverRun += try await clock.measure { entry = try await fixture.host.run(remote).auditEntry.facts }.seconds
                guard let entry, let latency = entry.serverLatencyMs, let compute = entry.serverComputeMs else {
                    throw BenchError("a remote run without its latency and compute time")
                }
                sample.serverRPC += latency / 1000
                sample.serverCompute += compute / 1000
                sample.bytesSent = entry.bytesSent
                sample.bytesReceived = entry.bytesReceived
                sample.rawTLS += try await fixture.link.roundTrip(sending: entry.bytesSent, receiving: entry.bytesReceived).seconds
            }
            let n = Double(calls)
            sample.deviceRun /= n
            sample.deviceCompute /= n
            sample.serverRun /= n
            sample.serverRPC /= n
            sample.serverCompute /= n
            sample.rawTLS /= n
            return sample
        }

        let samples = try await sampler.collect(
            setUp: { () async throws -> SplitFixture in
                let scratch = try ScratchHome.initialized()
                let added = try Importer(home: scratch.home, logger: logger).importPhotos(from: folder).added
                guard added == count else { throw BenchError("importPhotos added \(added) of \(count) pictures") }
                let (server, port) = try await Self.startComputeServer(certificates: certificates, logger: logger)
                let host = try EscrowHost(home: scratch.home, logger: logger)
                func path(_ name: String) -> String { certificates.appendingPathComponent(name).path }
                try host.servers.add(id: "compute-1", addresses: ["127.0.0.1:\(port)"], caFile: path("ca.pem"),
                                     serverName: "compute-1", clientCertificate: path("client.pem"),
                                     clientKey: path("client-key.pem"))
                try await Self.approveAlways(host, device)
                try await Self.approveAlways(host, remote)
                let database = try Database(path: scratch.home.dataDatabasePath, mode: .readOnly)
                let input = try Self.readPictures(try database.prepare(Self.photosSQL), AssetStore(root: scratch.home.assetsURL))
                return SplitFixture(scratch: scratch, host: host, server: server,
                                    link: try await RawTLSLink.open(certificates: certificates), input: input)
            },
            body: { fixture -> SplitSample in
                do {
                    let sample = try await measure(fixture)
                    await fixture.close()
                    return sample
                } catch {
                    await fixture.close()
                    throw error
                }
            },
            tearDown: { fixture in fixture.scratch.remove() }
        )
        let prefix = "split \(count) pictures:"
        let moved = samples.first.map { "\($0.bytesSent) B up, \($0.bytesReceived) B down" } ?? ""
        return [
            FigureResult(name: "\(prefix) run() on device", unit: .milliseconds, seconds: samples.map(\.deviceRun)),
            FigureResult(name: "\(prefix) device compute", unit: .milliseconds, seconds: samples.map(\.deviceCompute)),
            FigureResult(name: "\(prefix) run() on server", unit: .milliseconds, seconds: samples.map(\.serverRun)),
            FigureResult(name: "\(prefix) RPC round trip in run()", unit: .milliseconds, seconds: samples.map(\.serverRPC)),
            FigureResult(name: "\(prefix) server compute", unit: .milliseconds, seconds: samples.map(\.serverCompute)),
            FigureResult(name: "\(prefix) transfer (round trip − server compute, in run())", unit: .milliseconds,
                         seconds: samples.map { $0.serverRPC - $0.serverCompute }),
            FigureResult(name: "\(prefix) raw TLS round trip, same bytes (\(moved))", unit: .milliseconds, seconds: samples.map(\.rawTLS)),
            FigureResult(name: "\(prefix) RPC transfer / raw TLS", unit: .ratio,
                         values: samples.map { ($0.serverRPC - $0.serverCompute) / $0.rawTLS }, target: 1.3),
        ]
    }

    /// An in-process compute server on 127.0.0.1 with the shipped catalog and the development
    /// certificates in `certificates`.
    ///
    /// - Returns: the server and the port it listens on.
    static func startComputeServer(certificates: URL, maximumConcurrency: Int? = nil,
                                   logger: Logger) async throws -> (ComputeServer, Int) {
        func path(_ name: String) -> String { certificates.appendingPathComponent(name).path }
        var configuration = ComputeServerConfiguration(
            host: "127.0.0.1", port: 0,
            tls: TLSFiles(certificate: path("server.pem"), privateKey: path("server-key.pem"), certificateAuthority: path("ca.pem")))
        if let maximumConcurrency { configuration.maximumConcurrency = maximumConcurrency }
        let server = ComputeServer(configuration: configuration, catalog: EscrowFunctions.catalog, logger: logger)
        return (server, try await server.start())
    }

    /// A client connection to the server on `port`, greeted (the TLS handshake done).
    static func connect(to port: Int, certificates: URL) async throws -> ComputeConnection {
        func path(_ name: String) -> String { certificates.appendingPathComponent(name).path }
        let connection = try await ComputeConnection.connect(
            host: "127.0.0.1", port: port, serverName: "compute-1",
            tls: TLSFiles(certificate: path("client.pem"), privateKey: path("client-key.pem"), certificateAuthority: path("ca.pem")),
            group: MultiThreadedEventLoopGroup.singleton)
        _ = try await connection.hello(clientName: "escrow-bench")
        return connection
    }
}
