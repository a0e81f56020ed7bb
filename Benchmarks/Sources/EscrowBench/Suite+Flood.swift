import EscrowCore
import EscrowFunctions
import EscrowWire
import Foundation
import NIOPosix

// Issue 12: a flood of strangers' connections against the real escrow-compute process.
extension Suite {
    /// Child processes of the flood, each holding `floodConnectionsPerClient` connections.
    static let floodClients = 4
    static let floodConnectionsPerClient = 5000
    static let floodSeconds = 20.0

    /// One run (no repetitions: the flood takes the whole machine for half a minute).
    ///
    /// The release `escrow-compute` with its default limits (`--max-connections` from the
    /// descriptor limit, handshake and first-request timeouts 10 s) listens on 127.0.0.1; a host
    /// connects with the development client certificate and makes 50 `identity` calls; the
    /// server's resident set (VmRSS) is read after 1 s idle. Then 4 child processes
    /// (`escrow-bench --flood-client`) each open 5,000 plain TCP connections (one in 8 sends the
    /// start of a ClientHello, the others nothing) and reopen, once a second, those the server
    /// closed, for 20 s. Meanwhile the host's connection, opened before the flood, makes one
    /// `identity` call after another (each answer checked) and the server's VmRSS is read every
    /// 500 ms. After the children exit, VmRSS is read again after 5 s and after 15 s (past the
    /// handshake timeout), with the peak (VmHWM).
    func flood() async throws -> [FigureResult] {
        let compute = try Self.escrowExecutable(product: "escrow-compute")
        guard let bench = Bundle.main.executableURL else { throw BenchError("cannot find escrow-bench's own executable") }
        let folder = try Self.certificates()
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        let server = Process()
        server.executableURL = compute
        server.arguments = ["--listen", "127.0.0.1:0", "--cert", path("server.pem"), "--key", path("server-key.pem"),
                            "--client-ca", path("ca.pem")]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { Self.stop(server) }
        let port = try await Self.listeningPort(output, server)

        let host = try await ComputeConnection.connect(
            host: "127.0.0.1", port: port, serverName: "compute-1",
            tls: TLSFiles(certificate: path("client.pem"), privateKey: path("client-key.pem"), certificateAuthority: path("ca.pem")),
            group: MultiThreadedEventLoopGroup.singleton)
        _ = try await host.hello(clientName: "escrow-bench")
        let identity = try EscrowFunctions.catalog.function("identity").descriptor
        let input = try Frame(columns: [Column(name: "n", values: .int64([1, 2, 3]))])
        func call() async throws -> Double {
            let clock = ContinuousClock()
            let started = clock.now
            let result = try await host.compute(identity, input: input, parameters: ComputeParameters(), deadline: .seconds(30))
            guard result.output == input else { throw BenchError("identity gave another frame during the flood") }
            return (clock.now - started).seconds
        }
        for _ in 0..<50 { _ = try await call() }
        try await Task.sleep(for: .seconds(1))
        let idleReading = try Self.memory(of: server)
        let idle = idleReading.resident

        let children = try (0..<Self.floodClients).map { _ in
            let child = Process()
            child.executableURL = bench
            child.arguments = ["--flood-client", "\(port)", "--flood-connections", "\(Self.floodConnectionsPerClient)",
                               "--flood-seconds", "\(Self.floodSeconds)"]
            child.standardOutput = Pipe()
            try child.run()
            return child
        }
        defer { for child in children { Self.stop(child) } }
        var latencies: [Double] = []
        var during: [Double] = []
        var lastReading = ContinuousClock.now - .seconds(1)
        while children.contains(where: \.isRunning) {
            latencies.append(try await call())
            if ContinuousClock.now - lastReading >= .milliseconds(500) {
                during.append(try Self.memory(of: server).resident)
                lastReading = .now
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let report = children.compactMap { child in
            (child.standardOutput as? Pipe).map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        }.joined()
        print("flood clients: " + report.split(separator: "\n").joined(separator: "; "))
        try await Task.sleep(for: .seconds(5))
        let after5 = try Self.memory(of: server)
        try await Task.sleep(for: .seconds(10))
        let after15 = try Self.memory(of: server)
        let stillServes = try await call()
        await host.close()

        let sorted = latencies.sorted()
        let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        let total = Self.floodClients * Self.floodConnectionsPerClient
        return [
            FigureResult(name: "flood: host calls during \(total) connections", unit: .milliseconds, seconds: latencies, target: 1000),
            FigureResult(name: "  p99 of those calls", unit: .milliseconds, seconds: [p99], target: 1000),
            FigureResult(name: "  a call 15 s after the flood", unit: .milliseconds, seconds: [stillServes]),
            FigureResult(name: "escrow-compute RSS, idle", unit: .megabytes, values: [idle]),
            FigureResult(name: "  of which anonymous (RssAnon), idle", unit: .megabytes, values: [idleReading.anonymous]),
            FigureResult(name: "escrow-compute RSS during the flood (every 500 ms)", unit: .megabytes, values: during),
            FigureResult(name: "escrow-compute RSS 5 s after the flood", unit: .megabytes, values: [after5.resident]),
            FigureResult(name: "escrow-compute RSS 15 s after the flood", unit: .megabytes, values: [after15.resident],
                         target: idle * 1.2),
            FigureResult(name: "  of which anonymous (RssAnon), 15 s after", unit: .megabytes, values: [after15.anonymous]),
            FigureResult(name: "escrow-compute peak RSS (VmHWM)", unit: .megabytes, values: [after15.peak]),
        ]
    }

    /// The port of the "listening on HOST:PORT" line the server prints (within 30 s).
    static func listeningPort(_ output: Pipe, _ server: Process) async throws -> Int {
        let handle = output.fileHandleForReading
        let line = try await Task.detached { () throws -> String in
            var text = ""
            while !text.contains("\n") {
                let data = handle.availableData
                if data.isEmpty { throw BenchError("escrow-compute exited before listening") }
                text += String(decoding: data, as: UTF8.self)
            }
            return text
        }.value
        guard let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...].prefix { $0.isNumber }) else {
            throw BenchError("escrow-compute printed '\(line)', not 'listening on HOST:PORT'")
        }
        return port
    }
}
