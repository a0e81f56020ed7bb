import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// Compute functions reach the app's service only through the escrow's network client.
@Suite struct NetworkComputeTests {
    let logger = Logger(label: "test")
    static let lastLocation = "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1"

    @Test func theWeatherFlowAsksTheServiceThroughTheEscrow() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            let result = try await host.runApproving(app: "org.example.weather", purpose: "Weather where you are",
                                                     access: Self.lastLocation, compute: "weather.current",
                                                     parameters: ComputeParameters(["service": platform.baseURL]))
            #expect(result.output.columnNames == ["temperature", "condition"])
            let temperature = try #require(try result.output.column("temperature").double(at: 0))
            // The seeded latest fix is 41.7886, -87.5987: the service's formula gives this.
            let expected = ((28 - 41.7886 * 0.4 + sin(-87.5987 * .pi / 180) * 3) * 10).rounded() / 10
            #expect(temperature == expected)
            #expect(try result.output.column("condition").string(at: 0) != nil)
            // The service is part of the approved flow: another service is a new flow.
            await #expect(throws: DecisionError.self) {
                try await host.run(app: "org.example.weather", purpose: "Weather where you are", access: Self.lastLocation,
                                   compute: "weather.current", parameters: ComputeParameters(["service": "http://127.0.0.1:1"]))
            }
        }
    }

    @Test func anUnreachableServiceIsAClearFailureAndAudited() async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: logger)
            await #expect {
                try await host.runApproving(app: "org.example.weather", purpose: "Weather", access: Self.lastLocation,
                                            compute: "weather.current", parameters: ComputeParameters(["service": "http://127.0.0.1:1"]))
            } throws: { error in
                // The function's own error is carried, not flattened into text.
                guard case .computeFailed(let function, let underlying)? = error as? RunError,
                      case .serviceFailed(let reason)? = underlying as? ComputeError else { return false }
                return function == "weather.current" && reason.contains("127.0.0.1")
            }
            #expect(try host.audit.entries().last?.facts.outcome == .failed)
        }
    }

    @Test func aFunctionOnTheComputeServerGetsTheServersNetwork() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await ComputeServerProcess.with { server, certificates in
            try await TemporaryHome.with { temporary in
                try temporary.seed()
                let host = try EscrowHost(home: temporary.home, logger: logger)
                try host.register(server, certificates)
                let parameters = ComputeParameters(["service": platform.baseURL])
                let local = try await host.runApproving(app: "org.example.weather", purpose: "Weather", access: Self.lastLocation,
                                                        compute: "weather.current", parameters: parameters)
                let remote = try await host.runApproving(app: "org.example.weather", purpose: "Weather", access: Self.lastLocation,
                                                         compute: "weather.current", on: .server("compute-1"), parameters: parameters)
                #expect(remote.output == local.output)
            }
        }
    }
}
