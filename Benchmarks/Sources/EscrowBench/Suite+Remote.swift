import EscrowComputeRuntime
import EscrowCore
import EscrowFunctions
import EscrowWire
import Foundation
import Logging
import NIOPosix

// Issue 4's figures: the compute RPC over mutual TLS on loopback.
extension Suite {
    static let remoteCallsPerRepetition = 200

    /// Development certificates in a temporary folder, made with certs/make-dev-certs.sh
    /// (also used by the gRPC comparison, Suite+GRPC.swift).
    static func certificates() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-bench-certs-\(UUID().uuidString)")
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("certs/make-dev-certs.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, folder.path, "--quiet"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("make-dev-certs.sh failed") }
        return folder
    }

    /// An in-process compute server on 127.0.0.1 and one client connection to it.
    struct RemoteFixture {
        let folder: URL
        let server: ComputeServer
        let connection: ComputeConnection

        /// Closes the connection and stops the server (not the certificates' folder).
        func close() async {
            await connection.close()
            await server.shutdown()
        }

        /// `close()`, waited for from a synchronous tear-down.
        func closeWaiting() {
            let semaphore = DispatchSemaphore(value: 0)
            Task {
                await close()
                semaphore.signal()
            }
            semaphore.wait()
        }
    }

    /// A compute server and a connection to it, with the certificates in `folder` (from
    /// `certificates()`; made there when nil).
    func remoteFixture(certificates folder: URL? = nil) async throws -> RemoteFixture {
        let folder = try folder ?? Self.certificates()
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let server = ComputeServer(
            configuration: ComputeServerConfiguration(
                host: "127.0.0.1", port: 0,
                tls: TLSFiles(certificate: path("server.pem"), privateKey: path("server-key.pem"), certificateAuthority: path("ca.pem"))),
            catalog: EscrowFunctions.catalog, logger: logger)
        let port = try await server.start()
        let connection = try await ComputeConnection.connect(
            host: "127.0.0.1", port: port, serverName: "compute-1",
            tls: TLSFiles(certificate: path("client.pem"), privateKey: path("client-key.pem"), certificateAuthority: path("ca.pem")),
            group: MultiThreadedEventLoopGroup.singleton)
        _ = try await connection.hello(clientName: "escrow-bench")
        return RemoteFixture(folder: folder, server: server, connection: connection)
    }

    /// The inputs of the remote figures: one contact for `contacts.tuples` (small) and a bytes
    /// column of 1000 random 16 KB images for `identity` (large), the same on every run.
    static func remoteInputs() throws -> (small: Frame, large: Frame) {
        let small = try Frame(columns: [
            Column(name: "givenName", values: .string(["Ada"])),
            Column(name: "familyName", values: .string(["Lovelace"])),
            Column(name: "phoneNumbers", values: .string([#"[{"label":"mobile","value":"+1 555 0100"}]"#])),
        ])
        var generator = SeededGenerator(seed: 7)
        let images = (0..<1000).map { _ in (0..<(16 * 1024)).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let large = try Frame(columns: [Column(name: "asset", values: .bytes(images))])
        return (small, large)
    }

    /// A small call (contacts.tuples over one contact) and a large one (identity over 1000 images
    /// of 16 KB), each a full round trip over one mutual-TLS connection on loopback.
    func remoteCalls() async throws -> [FigureResult] {
        let clock = ContinuousClock()
        let (small, large) = try Self.remoteInputs()
        let tuples = try EscrowFunctions.catalog.function(ContactsTuples.id).descriptor
        let identity = try EscrowFunctions.catalog.function(Identity.id).descriptor
        let calls = Self.remoteCallsPerRepetition

        let samples = try await sampler.collect(
            setUp: { try await self.remoteFixture() },
            body: { fixture -> (small: Double, large: Double) in
                for _ in 0..<20 {
                    _ = try await fixture.connection.compute(tuples, input: small, parameters: ComputeParameters(), deadline: .seconds(10))
                }
                let smallTime = try await clock.measure {
                    for _ in 0..<calls {
                        _ = try await fixture.connection.compute(tuples, input: small, parameters: ComputeParameters(), deadline: .seconds(10))
                    }
                }
                var output: Frame?
                let largeTime = try await clock.measure {
                    output = try await fixture.connection.compute(identity, input: large, parameters: ComputeParameters(),
                                                                  deadline: .seconds(60)).output
                }
                guard output == large else { throw BenchError("the 1000 images did not come back unchanged") }
                return (smallTime.seconds / Double(calls), largeTime.seconds)
            },
            tearDown: { fixture in
                fixture.closeWaiting()
                try? FileManager.default.removeItem(at: fixture.folder)
            }
        )
        return [
            FigureResult(name: "remote small call round trip (TLS, loopback)", unit: .microseconds, seconds: samples.map(\.small)),
            FigureResult(name: "remote call, 1000 × 16 KB images (TLS, loopback)", unit: .milliseconds, seconds: samples.map(\.large)),
        ]
    }
}
