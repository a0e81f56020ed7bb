import EscrowCore
import EscrowFunctions
import EscrowTestSupport
import EscrowWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `escrow-compute --health-listen`: liveness, readiness (off first on SIGTERM) and the
/// Prometheus metrics an operator scrapes, from a real server process.
@Suite(.devCertificates)
struct HealthAndMetricsTests {
    private let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.forCurrentSuite()
    }

    /// GET (or another method) over plain HTTP on 127.0.0.1: the status and the body.
    static func request(_ port: Int, _ path: String, method: String = "GET") async throws -> (status: Int, body: String) {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// The value of the metric line that starts with `name` (and its labels), or nil.
    static func value(_ metrics: String, _ name: String) -> Double? {
        for line in metrics.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    @Test func healthReadinessAndMetricsAreServedAndCountCalls() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates, extraArguments: ["--health-listen", "127.0.0.1:0"])
        defer { server.kill() }
        let port = try #require(server.healthPort, "the server printed its health port")
        #expect(try await Self.request(port, "/healthz") == (200, "alive\n"))
        #expect(try await Self.request(port, "/readyz") == (200, "ready\n"))
        #expect(try await Self.request(port, "/nothing").status == 404)
        #expect(try await Self.request(port, "/metrics", method: "POST").status == 405)

        let bounds = try EscrowFunctions.catalog.function("location.bounds").descriptor
        let input = try Frame(columns: [Column(name: "latitude", values: .double([46.5])), Column(name: "longitude", values: .double([6.6]))])
        try await RemoteFixtures.withConnection(to: server) { connection in
            _ = try await connection.hello(clientName: "metrics")
            for _ in 0..<3 {
                _ = try await connection.compute(bounds, input: input, parameters: ComputeParameters(), deadline: .seconds(20))
            }
            let unknown = FunctionDescriptor(id: "nothing.here", version: 1, codeDigest: String(repeating: "a", count: 64), summary: "")
            await #expect(throws: RPCError.self) {
                try await connection.compute(unknown, input: input, parameters: ComputeParameters(), deadline: .seconds(20))
            }
            let (status, metrics) = try await Self.request(port, "/metrics")
            #expect(status == 200)
            #expect(Self.value(metrics, #"escrow_compute_calls_total{kind="function"}"#) == 3, "\(metrics)")
            #expect(Self.value(metrics, #"escrow_compute_answers_total{outcome="ok"}"#) == 3)
            #expect(Self.value(metrics, #"escrow_compute_answers_total{outcome="unknown_function"}"#) == 1)
            #expect(Self.value(metrics, #"escrow_compute_call_duration_seconds_count"#) == 3)
            #expect(Self.value(metrics, "escrow_compute_connections") == 1)
            #expect(Self.value(metrics, "escrow_compute_calls_in_flight") == 0)
            #expect((Self.value(metrics, "escrow_compute_received_bytes_total") ?? 0) > 0)
            #expect((Self.value(metrics, "escrow_compute_sent_bytes_total") ?? 0) > 0)
            #expect(Self.value(metrics, "escrow_compute_module_cache_entries") == 0)
            #expect(metrics.contains("# TYPE escrow_compute_call_duration_seconds histogram"))
        }
    }

    @Test func onSIGTERMReadinessTurnsOffFirstWhileLivenessStaysAndCallsAreStillTaken() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates, extraArguments: [
            // Long enough for the checks below on a machine running the whole suite at once.
            "--health-listen", "127.0.0.1:0", "--readiness-drain-delay", "30",
        ])
        defer { server.kill() }
        let port = try #require(server.healthPort)
        let bounds = try EscrowFunctions.catalog.function("location.bounds").descriptor
        let input = try Frame(columns: [Column(name: "latitude", values: .double([46.5])), Column(name: "longitude", values: .double([6.6]))])
        try await RemoteFixtures.withConnection(to: server) { connection in
            _ = try await connection.hello(clientName: "drain")
            #expect(try await Self.request(port, "/readyz").status == 200)
            server.terminate()
            // Readiness goes off at once; the server keeps taking calls through the delay.
            var ready = 200
            for _ in 0..<100 where ready == 200 {
                ready = try await Self.request(port, "/readyz").status
                if ready == 200 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(ready == 503)
            #expect(try await Self.request(port, "/readyz").body.hasPrefix("draining"))
            #expect(try await Self.request(port, "/healthz").status == 200)
            let output = try await connection.compute(bounds, input: input, parameters: ComputeParameters(), deadline: .seconds(20))
            #expect(output.output.rowCount == 1, "a call on its way during the delay is still served")
        }
        #expect(try await server.waitForExit(timeout: .seconds(90)) == 0)
    }
}
