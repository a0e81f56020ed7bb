import EscrowCore
import EscrowEgress
import EscrowNetwork
import EscrowTestSupport
import Foundation
import Testing

/// The recorder compute functions are handed, over the escrow's real HTTP client and the example
/// platform service on 127.0.0.1 (reached under a service name through the client's resolver).
@Suite struct EgressRecorderTests {
    static let location = try? Frame(columns: [
        Column(name: "latitude", values: .double([41.7886])),
        Column(name: "longitude", values: .double([-87.5987])),
    ])

    static func client() throws -> HTTPNetworkClient {
        HTTPNetworkClient(resolve: try HostResolution(parsing: ["api.weather.example.com=127.0.0.1"]))
    }

    @Test func aRequestIsRecordedByHostWithItsStatusSizesAndTheSentDataHint() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        let input = try #require(Self.location)
        let recorder = EgressRecorder(base: try Self.client(), input: input, clock: try SettableClock(at: "2026-11-25T10:00:00.700Z"))
        let url = "http://API.Weather.Example.COM.:\(platform.port)/weather?latitude=41.7886&longitude=-87.5987"
        let response = try await recorder.send(NetworkRequest(url: url))
        #expect(response.status == 200)
        let missing = try await recorder.send(NetworkRequest(url: "http://api.weather.example.com:\(platform.port)/nowhere"))
        #expect(missing.status == 404)
        let recorded = recorder.observations
        #expect(recorded.count == 2)
        #expect(recorded.map(\.host) == ["api.weather.example.com", "api.weather.example.com"], "one spelling per host")
        #expect(recorded[0].time == 1_795_600_800, "whole seconds")
        #expect(recorded[0].status == 200 && recorded[1].status == 404)
        #expect(recorded[0].bytesIn == response.body.count)
        #expect(recorded[0].bytesOut == url.utf8.count)
        #expect(recorded[0].sentData, "the latitude it read is in the URL")
        #expect(!recorded[1].sentData)
    }

    @Test func aBlockedDomainFailsInsideTheFunctionAndIsRecordedAsBlocked() async throws {
        let input = try #require(Self.location)
        let recorder = EgressRecorder(base: try Self.client(), blocked: DomainSet([try #require(HostName("example.com"))]),
                                      input: input)
        await #expect(throws: ComputeError.blocked(host: "api.weather.example.com", domain: "example.com")) {
            try await recorder.send(NetworkRequest(url: "http://api.weather.example.com:1/weather?latitude=41.7886"))
        }
        let recorded = try #require(recorder.observations.first)
        #expect(recorded.blocked && recorded.status == nil && recorded.bytesIn == 0)
        #expect(recorded.sentData)
    }

    @Test func filtersThatCannotBeReadSendNothing() async throws {
        struct Unreadable: Error {}
        let recorder = EgressRecorder(base: try Self.client(), blocked: { throw Unreadable() }, input: .empty)
        await #expect {
            try await recorder.send(NetworkRequest(url: "http://api.weather.example.com:1/"))
        } throws: { error in
            guard case .serviceFailed(let reason)? = error as? ComputeError else { return false }
            return reason.contains("could not read which domains the individual blocks")
        }
        #expect(recorder.observations.isEmpty)
    }

    @Test(arguments: ["", "GET / HTTP/1.1\r\nX-Evil: 1", "G ET", "GÉT", "POSTPOSTPOSTPOSTX", "GET\n"])
    func aMethodThatIsNoHTTPMethodIsRefusedAndNothingRecorded(_ method: String) async throws {
        let recorder = EgressRecorder(base: try Self.client(), input: .empty)
        await #expect {
            try await recorder.send(NetworkRequest(method: method, url: "http://api.weather.example.com:1/"))
        } throws: { error in
            guard case .serviceFailed(let reason)? = error as? ComputeError else { return false }
            return reason.contains("is not an HTTP method")
        }
        #expect(recorder.observations.isEmpty)
    }

    @Test func aRunMakesAtMostItsLimitOfRequests() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        let recorder = EgressRecorder(base: try Self.client(), input: .empty, limit: 2)
        for _ in 0..<2 {
            _ = try await recorder.send(NetworkRequest(url: "http://api.weather.example.com:\(platform.port)/nowhere"))
        }
        await #expect(throws: ComputeError.tooManyRequests(limit: 2)) {
            try await recorder.send(NetworkRequest(url: "http://api.weather.example.com:\(platform.port)/nowhere"))
        }
        #expect(recorder.observations.count == 2)
    }
}
