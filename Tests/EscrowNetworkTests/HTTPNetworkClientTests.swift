import EscrowCore
import EscrowNetwork
import EscrowTestSupport
import Foundation
import Testing

/// The network client compute functions get, against real servers on 127.0.0.1: the example
/// platform service (HTTP) and `openssl s_server` with development certificates (HTTPS).
@Suite struct HTTPNetworkClientTests {
    static func failure(_ body: () async throws -> NetworkResponse) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let error as ComputeError {
            return "\(error)"
        } catch {
            return "not a ComputeError: \(error)"
        }
    }

    @Test func getPostAndNotFoundAgainstTheExampleBackend() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        let client = HTTPNetworkClient()
        let weather = try await client.send(NetworkRequest(url: "\(platform.baseURL)/weather?latitude=41.79&longitude=-87.6"))
        #expect(weather.status == 200)
        #expect(String(decoding: weather.body, as: UTF8.self).contains("\"temperature\""))

        let match = try await client.send(NetworkRequest(method: "POST", url: "\(platform.baseURL)/directory/match",
                                                         headers: ["Content-Type": "application/json"],
                                                         body: Array(#"["00", "11"]"#.utf8)))
        #expect(match.status == 200)
        #expect(String(decoding: match.body, as: UTF8.self) == "[]")

        let missing = try await client.send(NetworkRequest(url: "\(platform.baseURL)/nowhere"))
        #expect(missing.status == 404, "a status is an answer, not an error")
    }

    @Test func aLargerAnswerThanAllowedFails() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        let message = await Self.failure {
            try await HTTPNetworkClient(maximumResponseBytes: 10)
                .send(NetworkRequest(url: "\(platform.baseURL)/weather?latitude=1&longitude=2"))
        }
        #expect(message?.contains("answered more than 10 bytes") == true, "\(message ?? "no error")")
    }

    @Test func unreachableSilentAndMalformedServicesAreClearErrors() async throws {
        // Nothing listens on port 9 of 127.0.0.1 (discard, never run here).
        let refused = await Self.failure { try await HTTPNetworkClient().send(NetworkRequest(url: "http://127.0.0.1:9/x")) }
        #expect(refused?.hasPrefix("the service the function calls failed: 127.0.0.1") == true, "\(refused ?? "no error")")

        // A socket that accepts connections (the kernel's backlog) but never answers.
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try #require(withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, length) == 0 && listen(silent, 4) == 0
                && getsockname(silent, $0, &length) == 0 }
        })
        let port = Int(UInt16(bigEndian: address.sin_port))
        let clock = ContinuousClock()
        let started = clock.now
        let quiet = await Self.failure {
            try await HTTPNetworkClient(timeout: .milliseconds(300)).send(NetworkRequest(url: "http://127.0.0.1:\(port)/"))
        }
        #expect(quiet?.contains("did not answer within 0.3 seconds") == true, "\(quiet ?? "no error")")
        // Never before the deadline. The upper bound only catches a hang: with hundreds of tests
        // sharing two cores, the timer's wake-up has been seen 5 s late, so it is not a measurement.
        let waited = clock.now - started
        #expect(waited >= .milliseconds(300))
        #expect(waited < .seconds(60))

        let notHTTP = await Self.failure { try await HTTPNetworkClient().send(NetworkRequest(url: "ftp://example.org/x")) }
        #expect(notHTTP?.contains("is not an http(s) URL") == true)
    }

    @Test func httpsChecksTheCertificateAgainstTheTrustedCAs() async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        let port = 20_000 + Int.random(in: 0..<20_000)
        server.arguments = ["s_server", "-quiet", "-www", "-accept", "127.0.0.1:\(port)", "-cert", certificates.path("server.pem"),
                            "-key", certificates.path("server-key.pem")]
        // Pipes rather than FileHandle.nullDevice: the shared null handle and Process do not mix
        // well on Linux (crashes in libdispatch were seen with it while other tests' processes exited).
        server.standardOutput = Pipe()
        server.standardError = Pipe()
        try server.run()
        // s_server does not stop on SIGTERM while it waits for a connection.
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }

        let trusting = HTTPNetworkClient(certificateAuthority: certificates.path("ca.pem"))
        var response: NetworkResponse?
        for _ in 0..<50 where response == nil {
            response = try? await trusting.send(NetworkRequest(url: "https://localhost:\(port)/"))
            if response == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(response?.status == 200)

        // The same server, from a client that trusts only the system's CAs: refused.
        let message = await Self.failure { try await HTTPNetworkClient().send(NetworkRequest(url: "https://localhost:\(port)/")) }
        #expect(message != nil)
        #expect(message?.hasPrefix("the service the function calls failed: localhost") == true, "\(message ?? "")")
    }
}
