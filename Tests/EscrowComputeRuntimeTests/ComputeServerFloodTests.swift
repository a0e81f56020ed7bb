import EscrowCore
import EscrowTestSupport
import Foundation
import Testing

@testable import EscrowComputeRuntime
@testable import EscrowWire

/// The real `escrow-compute` process under a flood of strangers' connections: plain TCP
/// connections without a certificate, TLS clients that never finish their handshake, clients
/// that never send a request. Connections over `--max-connections` are closed at once, the silent
/// ones when their deadline passes, and a host connected before the flood keeps computing
/// within a second per call throughout (docs/COMPUTE-SERVER.md, "Connection limits").
@Suite(.devCertificates)
struct ComputeServerFloodTests {
    private let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.forCurrentSuite()
    }

    /// The first 40 bytes of a TLS 1.2/1.3 ClientHello announcing 196 bytes: the server's TLS
    /// stack waits for the rest, which never comes.
    private static let partialClientHello: [UInt8] =
        [0x16, 0x03, 0x01, 0x00, 0xC8, 0x01, 0x00, 0x00, 0xC4, 0x03, 0x03] + [UInt8](repeating: 0x5A, count: 29)

    /// Runs an `identity` call on `host` and checks it answers correctly within a second, or
    /// within `allowance` when the machine itself is slower than that (see `allowance(for:)`).
    private static func expectPromptCall(_ host: ComputeConnection, _ value: Int64, allowance: Duration = .seconds(1),
                                         sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let identity = try RemoteFixtures.descriptor("identity")
        let input = try RemoteFixtures.small(value)
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await host.compute(identity, input: input, parameters: ComputeParameters(), deadline: .seconds(10))
        let elapsed = clock.now - started
        #expect(result.output == input, sourceLocation: sourceLocation)
        #expect(elapsed < max(.seconds(1), allowance), "the host's call took \(elapsed) during the flood",
                sourceLocation: sourceLocation)
    }

    /// The time a flood-time call is allowed: 1 s, or five times the slowest of 10 calls made
    /// before the flood when the machine is so loaded (the whole test suite running in parallel)
    /// that calls without any flood already take that long. A server stalled by the flood is
    /// still caught: its calls take far longer than the same calls before.
    private static func allowance(for host: ComputeConnection) async throws -> Duration {
        let identity = try RemoteFixtures.descriptor("identity")
        let input = try RemoteFixtures.small(0)
        let clock = ContinuousClock()
        var slowest = Duration.zero
        for _ in 0..<10 {
            let started = clock.now
            _ = try await host.compute(identity, input: input, parameters: ComputeParameters(), deadline: .seconds(30))
            slowest = max(slowest, clock.now - started)
        }
        return max(.seconds(1), slowest * 5)
    }

    /// Waits until at least `count` of `clients` were closed by the server.
    ///
    /// - Returns: how many are closed then (or when `timeout` passed).
    private static func closedCount(of clients: [RawTLSClient], reaching count: Int, timeout: Duration) async throws -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var closed = clients.count { $0.isClosed }
        while closed < count, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            closed = clients.count { $0.isClosed }
        }
        return closed
    }

    @Test func aFloodOverTheMaximumIsRefusedAtOnceWhileTheHostKeepsComputing() async throws {
        // Deadlines far beyond the test: every connection closed here was refused over the maximum.
        let server = try await ComputeServerProcess.start(
            certificates: certificates,
            extraArguments: ["--max-connections", "32", "--handshake-timeout", "300", "--first-request-timeout", "300"])
        defer { server.kill() }
        let flood = try await RemoteFixtures.withConnection(to: server) { host in
            let allowance = try await Self.allowance(for: host)
            // 200 plain TCP connections and 8 TLS clients stuck in their ClientHello, with a host
            // call after every 20 of them.
            var flood: [RawTLSClient] = []
            for index in 0..<208 {
                let client = try await RawTLSClient.connect(port: server.port, security: .plaintext)
                if index % 26 == 0 { await client.write(Self.partialClientHello) }
                flood.append(client)
                if index % 20 == 0 { try await Self.expectPromptCall(host, Int64(index), allowance: allowance) }
            }
            // The host holds one of the 32 places: 31 strangers got in, the other 177 were closed.
            let closed = try await Self.closedCount(of: flood, reaching: 177, timeout: .seconds(30))
            #expect(closed == 177, "\(closed) of 208 flood connections closed; 177 are over the maximum")
            for value in 0..<10 { try await Self.expectPromptCall(host, Int64(1000 + value), allowance: allowance) }
            // While the strangers hold every place, a new host is refused too.
            await #expect(throws: RPCError.self, "a connection over the maximum is closed") {
                try await RemoteFixtures.withConnection(to: server) { _ in }
            }
            try await Self.expectPromptCall(host, 2000, allowance: allowance)
            return flood
        }
        for client in flood { await client.close() }
        // Places free up as the server sees the strangers leave: a fresh host gets in and computes.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while true {
            do {
                try await RemoteFixtures.expectStillServes(server)
                break
            } catch where clock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(server.isRunning)
    }

    @Test func silentClientsAreClosedAtTheirDeadlineWhileTheHostKeepsComputing() async throws {
        // Long enough for the host's own handshake on a loaded machine (a debug build, the whole
        // suite starting at once on two cores: 4 s was not), short enough to wait for.
        let server = try await ComputeServerProcess.start(
            certificates: certificates, extraArguments: ["--handshake-timeout", "12", "--first-request-timeout", "12"])
        defer { server.kill() }
        // With the whole suite starting at once a handshake can take longer than the deadline
        // under test: the server then rightly closes it, and the host tries again.
        var attempts = 0
        let connection: ComputeConnection
        while true {
            do {
                connection = try await RemoteFixtures.connect(to: server)
                break
            } catch where attempts < 4 {
                attempts += 1
            }
        }
        try await connection.closing { host in
            let allowance = try await Self.allowance(for: host)
            let silent = try await RawTLSClient.connect(port: server.port, security: .plaintext)
            let partial = try await RawTLSClient.connect(port: server.port, security: .plaintext)
            await partial.write(Self.partialClientHello)
            // A client with a good certificate that finishes its handshake, then says nothing.
            let mute = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
            try await Self.expectPromptCall(host, 1, allowance: allowance)
            #expect(try await silent.waitUntilClosed(timeout: .seconds(30)), "a client that sends nothing is closed")
            #expect(try await partial.waitUntilClosed(timeout: .seconds(30)), "a client stuck in its ClientHello is closed")
            #expect(try await mute.waitUntilClosed(timeout: .seconds(30)), "a client that sends no request is closed")
            #expect(mute.error == nil, "the TLS connection was up, then closed: \(String(describing: mute.error))")
            // The host's connection, older than every deadline, is open and computes.
            try await Self.expectPromptCall(host, 2, allowance: allowance)
        }
        try await RemoteFixtures.expectStillServes(server)
    }

    @Test func anIdleConnectionIsClosedButNotOneWithACallInFlight() async throws {
        let weather = try RemoteFixtures.descriptor("weather.current")
        let service = try SilentListener()
        defer { service.close() }
        // 8 s, not 1: with the whole suite running on two cores, this test's connections were
        // closed before it got its requests out (seen three times on 2026-11-26 with 1 s and 3 s).
        let server = try await ComputeServerProcess.start(certificates: certificates, extraArguments: ["--idle-timeout", "8"])
        defer { server.kill() }

        let idle = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
        try await idle.send(RemoteEnvelopes.hello(id: 1))
        #expect(try await idle.nextEnvelope()?.requestID == 1)

        // A call to a weather service that never answers stays in flight until the function gives
        // up on the service (the escrow's HTTP client waits 10 s, longer than the idle timeout).
        let busy = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
        var call = RemoteEnvelopes.compute(id: 2, weather, input: try Frame(columns: [
            Column(name: "latitude", values: .double([46.5])), Column(name: "longitude", values: .double([6.6])),
        ]), deadline: .seconds(30))
        call.computeRequest.parameters = ["service": service.url]
        try await busy.send(RemoteEnvelopes.hello(id: 1), call)
        #expect(try await busy.nextEnvelope()?.requestID == 1)

        #expect(try await idle.waitUntilClosed(timeout: .seconds(30)), "a connection idle for 8 s is closed")
        // The connection waiting for its call stays open past the idle timeout: the answer comes
        // over it once the function gave up, 10 s in (checked by the answer itself, not by looking
        // at the connection at some moment, which a loaded machine may reach too late).
        let answer = try await busy.nextEnvelope(timeout: .seconds(60))
        #expect(answer?.requestID == 2)
        #expect([.functionFailed, .deadlineExceeded].contains(answer?.error.code), "got \(RemoteEnvelopes.summary(answer))")
        // Answered and silent again: now it is idle.
        #expect(try await busy.waitUntilClosed(timeout: .seconds(30)), "idle again once its call is answered")
        try await RemoteFixtures.expectStillServes(server)
    }

    @Test func aLengthPrefixOf512MegabytesIsRefusedBeforeItsBytes() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        let client = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
        // Only the prefix is sent: the answer cannot wait for the 512 MB it announces.
        await client.write(RawTLSClient.lengthPrefix(512 << 20))
        let reply = try await client.nextEnvelope(timeout: .seconds(10))
        #expect(reply?.error.code == .messageTooLarge, "got \(RemoteEnvelopes.summary(reply))")
        #expect(try await client.waitUntilClosed(timeout: .seconds(10)))
    }

    @Test(arguments: [
        (["--max-connections", "0"], "--max-connections must be at least 1"),
        (["--handshake-timeout", "nan"], "--handshake-timeout must be a number of seconds above 0"),
        (["--first-request-timeout=-1"], "--first-request-timeout must be a number of seconds above 0"),
        (["--idle-timeout", "100000"], "--idle-timeout must be a number of seconds above 0 and at most 86400"),
        (["--max-message", "100"], "--max-message must be at least 1024 bytes"),
        (["--max-frame", "100"], "--max-frame must be at least 1024 bytes"),
        (["--max-frame", "65536", "--max-message", "65536"], "--max-frame is the old name of --max-message; give --max-message only"),
    ])
    func aLimitOutOfRangeIsAUsageError(flags: [String], message: String) throws {
        let refused = try ComputeServerProcess.refusedStart(arguments: [
            "--listen", "127.0.0.1:0", "--cert", certificates.path("server.pem"), "--key", certificates.path("server-key.pem"),
            "--client-ca", certificates.path("ca.pem"),
        ] + flags)
        #expect(refused.status == 64)
        #expect(refused.standardError.contains(message), "\(refused.standardError)")
    }
}
