import EscrowCore
import EscrowFunctions
import EscrowTestSupport
import Foundation
import Testing

@testable import EscrowComputeRuntime
@testable import EscrowWire

/// A byte sequence a hostile client sends over TLS, for the table of malformed streams.
struct HostileBytes: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    var testDescription: String { name }

    /// `count` random bytes from `seed`, the same on every run.
    static func garbage(seed: UInt64, count: Int, lengthPrefixed: Bool) -> HostileBytes {
        var generator = SplitMix64(seed: seed)
        let random = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        return HostileBytes(name: "\(count) random bytes (seed \(seed))\(lengthPrefixed ? " behind a valid length" : "")",
                            bytes: lengthPrefixed ? RawTLSClient.lengthPrefix(count) + random : random)
    }
}

/// The real `escrow-compute` process facing clients that break the rules. Every test ends by
/// checking that a client connected before the hostile one still computes, and that a fresh
/// client can say hello and compute.
@Suite(.devCertificates)
struct ComputeServerHostileClientTests {
    private let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.forCurrentSuite()
    }

    /// Starts a server, connects a good client, runs `body`, then checks the server still serves
    /// the good client and a fresh one.
    private func withServer(_ arguments: [String] = [],
                            _ body: (ComputeServerProcess, ComputeConnection) async throws -> Void) async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates, extraArguments: arguments)
        defer { server.kill() }
        try await RemoteFixtures.withConnection(to: server) { good in
            _ = try await good.hello(clientName: "good-client")
            try await body(server, good)
            try await RemoteFixtures.expectStillServes(server, existing: good)
        }
        #expect(server.isRunning)
    }

    // MARK: - TLS and certificates

    @Test func aClientWithoutCertificateIsRefused() async throws {
        try await withServer { server, _ in
            let client = try await RawTLSClient.connect(
                port: server.port,
                security: .tls(certificate: nil, privateKey: nil, certificateAuthority: certificates.client.certificateAuthority,
                               serverName: "localhost"))
            try await client.send(RemoteEnvelopes.hello(id: 1))
            #expect(try await client.nextEnvelope(timeout: .seconds(5)) == nil, "no catalog without a client certificate")
            #expect(try await client.waitUntilClosed(timeout: .seconds(5)))
        }
    }

    @Test(arguments: ["another CA", "expired"])
    func aClientCertificateTheServerMustRefuse(kind: String) async throws {
        let files = kind == "expired" ? certificates.expiredClient : certificates.otherCAClient
        try await withServer { server, _ in
            let error = await #expect(throws: RPCError.self) {
                try await RemoteFixtures.withConnection(to: server, files: files) { connection in
                    _ = try await connection.hello(clientName: "bad-certificate", deadline: .seconds(5))
                }
            }
            guard case .connectionFailed? = error else {
                Issue.record("expected RPCError.connectionFailed (the handshake failed), got \(String(describing: error))")
                return
            }
        }
    }

    @Test func aWrongServerNameFailsTheClient() async throws {
        try await withServer { server, _ in
            let error = await #expect(throws: RPCError.self) {
                try await RemoteFixtures.withConnection(to: server, serverName: "not-the-server") { connection in
                    _ = try await connection.hello(clientName: "wrong-name", deadline: .seconds(5))
                }
            }
            guard case .connectionFailed? = error else {
                Issue.record("expected RPCError.connectionFailed, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(arguments: ["a text line", "a hello message without TLS"])
    func aPlaintextClientOnTheTLSPortIsClosed(sending what: String) async throws {
        let bytes: [UInt8] = what == "a text line" ? Array("hello\n".utf8) : try RawTLSClient.message(RemoteEnvelopes.hello(id: 1))
        try await withServer { server, _ in
            let client = try await RawTLSClient.connect(port: server.port, security: .plaintext)
            await client.write(bytes)
            #expect(try await client.nextEnvelope(timeout: .seconds(5)) == nil)
            #expect(try await client.waitUntilClosed(timeout: .seconds(5)))
        }
    }

    // MARK: - Length prefix

    /// `--max-frame` is the flag's former name, still accepted by existing deployments.
    @Test(arguments: ["--max-message", "--max-frame"])
    func aLengthOverTheMaximumIsMessageTooLargeThenClose(flag: String) async throws {
        try await withServer([flag, "65536"]) { server, _ in
            let client = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
            await client.write(RawTLSClient.lengthPrefix(1024 * 1024))
            let reply = try await client.nextEnvelope(timeout: .seconds(5))
            #expect(reply?.requestID == 0)
            #expect(reply?.error.code == .messageTooLarge)
            #expect(try await client.waitUntilClosed(timeout: .seconds(5)))
        }
    }

    @Test func aTruncatedMessageThenCloseIsDropped() async throws {
        try await withServer { server, _ in
            let client = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
            await client.write(RawTLSClient.lengthPrefix(100) + [UInt8](repeating: 0x2A, count: 10))
            #expect(try await client.nextEnvelope(timeout: .milliseconds(300)) == nil, "half a message is not answered")
            await client.close()
        }
    }

    @Test(arguments: [
        HostileBytes.garbage(seed: 1, count: 4096, lengthPrefixed: false),
        HostileBytes.garbage(seed: 2, count: 65, lengthPrefixed: false),
        HostileBytes.garbage(seed: 3, count: 200, lengthPrefixed: true),
        HostileBytes.garbage(seed: 4, count: 5000, lengthPrefixed: true),
    ])
    func randomGarbageOverTLS(_ input: HostileBytes) async throws {
        try await withServer(["--max-message", "65536"]) { server, _ in
            let client = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
            await client.write(input.bytes)
            let reply = try await client.nextEnvelope(timeout: .seconds(5))
            #expect(reply?.requestID == 0)
            #expect([.messageTooLarge, .badRequest].contains(reply?.error.code), "got \(RemoteEnvelopes.summary(reply))")
            #expect(try await client.waitUntilClosed(timeout: .seconds(5)))
        }
    }

    @Test(arguments: [
        HostileBytes(name: "a truncated varint", bytes: [0xFF, 0xFF, 0xFF]),
        HostileBytes(name: "wire type 7", bytes: [0x0F]),
        HostileBytes(name: "a field longer than the message", bytes: [0x22, 0x10, 0x01]),
        HostileBytes(name: "a compute request with a truncated map entry inside", bytes: [0x22, 0x04, 0x2A, 0x02, 0x12, 0x05]),
        HostileBytes(name: "a hello whose client name is not UTF-8", bytes: [0x12, 0x03, 0x0A, 0x01, 0xFF]),
    ])
    func aValidLengthHoldingInvalidProtobufIsBadRequestThenClose(_ input: HostileBytes) async throws {
        try await withServer { server, _ in
            let client = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
            await client.write(RawTLSClient.lengthPrefix(input.bytes.count) + input.bytes)
            let reply = try await client.nextEnvelope(timeout: .seconds(5))
            #expect(reply?.requestID == 0)
            #expect(reply?.error.code == .badRequest, "got \(RemoteEnvelopes.summary(reply))")
            #expect(try await client.waitUntilClosed(timeout: .seconds(5)))
        }
    }

    // MARK: - Calls the server refuses; the connection stays open

    @Test func aComputeRequestBeforeHelloIsBadRequest() async throws {
        try await withServer { server, _ in
            let client = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
            let input = try Frame(columns: [Column(name: "x", values: .int64([1]))])
            try await client.send(RemoteEnvelopes.compute(id: 7, try RemoteFixtures.descriptor("identity"), input: input))
            let reply = try await client.nextEnvelope(timeout: .seconds(5))
            #expect(reply?.requestID == 7)
            #expect(reply?.error.code == .badRequest)
            #expect(reply?.error.message.contains("Hello") == true)
            await client.close()
        }
    }

    @Test func anotherProtocolVersionIsBadRequestThenClose() async throws {
        try await withServer { server, _ in
            let client = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
            var hello = RemoteEnvelopes.hello(id: 1)
            hello.hello.protocolVersion = 99
            try await client.send(hello)
            let reply = try await client.nextEnvelope(timeout: .seconds(5))
            #expect(reply?.error.code == .badRequest)
            #expect(try await client.waitUntilClosed(timeout: .seconds(5)))
        }
    }

    @Test func anUnknownFunctionKeepsTheConnection() async throws {
        try await withServer { server, good in
            let unknown = FunctionDescriptor(id: "no.such.function", version: 1, codeDigest: String(repeating: "0", count: 64), summary: "")
            let error = await #expect(throws: RPCError.self) {
                try await good.compute(unknown, input: try RemoteFixtures.small(1), parameters: ComputeParameters(), deadline: .seconds(5))
            }
            guard case .remote(let code, let message)? = error else {
                Issue.record("expected the server's UNKNOWN_FUNCTION, got \(String(describing: error))")
                return
            }
            #expect(code == .unknownFunction)
            #expect(message.contains("no.such.function"))
            // The same connection keeps working.
            try await good.ping()
            #expect(good.isActive)
        }
    }

    @Test(arguments: ["digest", "version"])
    func aDigestMismatchIsRefused(changed: String) async throws {
        let identity = try RemoteFixtures.descriptor("identity")
        let wrong = changed == "digest"
            ? FunctionDescriptor(id: identity.id, version: identity.version, codeDigest: String(repeating: "f", count: 64), summary: identity.summary)
            : FunctionDescriptor(id: identity.id, version: identity.version + 1, codeDigest: identity.codeDigest, summary: identity.summary)
        try await withServer { server, good in
            let error = await #expect(throws: RPCError.self) {
                try await good.compute(wrong, input: try RemoteFixtures.small(1), parameters: ComputeParameters(), deadline: .seconds(5))
            }
            #expect(error.map(Self.code) == .digestMismatch, "got \(String(describing: error))")
        }
    }

    @Test(arguments: ["missing column", "wrong type"])
    func inputThatDoesNotMatchTheDeclaredColumns(problem: String) async throws {
        let tuples = try RemoteFixtures.descriptor("contacts.tuples")
        let input = problem == "missing column"
            ? try Frame(columns: [Column(name: "givenName", values: .string(["Ada"])), Column(name: "familyName", values: .string(["L"]))])
            : try Frame(columns: [Column(name: "givenName", values: .int64([1])), Column(name: "familyName", values: .string(["L"])),
                                  Column(name: "phoneNumbers", values: .string(["[]"]))])
        try await withServer { server, good in
            let error = await #expect(throws: RPCError.self) {
                try await good.compute(tuples, input: input, parameters: ComputeParameters(), deadline: .seconds(5))
            }
            #expect(error.map(Self.code) == .inputMismatch, "got \(String(describing: error))")
        }
    }

    @Test func aBadParameterIsBadRequest() async throws {
        let region = try RemoteFixtures.descriptor("location.region")
        let input = try Frame(columns: [Column(name: "latitude", values: .double([1])), Column(name: "longitude", values: .double([2]))])
        try await withServer { server, good in
            for parameters in [["radius": "far"], ["radius": "5"], ["colour": "red"]] {
                let error = await #expect(throws: RPCError.self) {
                    try await good.compute(region, input: input, parameters: ComputeParameters(parameters), deadline: .seconds(5))
                }
                #expect(error.map(Self.code) == .badRequest, "\(parameters): got \(String(describing: error))")
            }
        }
    }

    @Test("blocked domains the host would never send are BAD_REQUEST, naming what is wrong", arguments: [
        (["Example.COM"], "blocked domain 'Example.COM' is not a normalized host name"),
        (["example.com."], "blocked domain 'example.com.' is not a normalized host name"),
        (["bücher.example"], "blocked domain 'bücher.example' is not a normalized host name"),
        (["example.com", "http://x.com/"], "blocked domain 'http://x.com/' is not a normalized host name"),
        ([""], "blocked domain '' is not a normalized host name"),
        ((0...ServerConnectionHandler.maximumBlockedDomains).map { "d\($0).example" },
         "\(ServerConnectionHandler.maximumBlockedDomains + 1) blocked domains; at most \(ServerConnectionHandler.maximumBlockedDomains) are taken"),
    ])
    func blockedDomainsOutsideTheProtocol(_ domains: [String], _ message: String) async throws {
        let region = try RemoteFixtures.descriptor("location.region")
        let input = try Frame(columns: [Column(name: "latitude", values: .double([1])), Column(name: "longitude", values: .double([2]))])
        try await withServer { server, good in
            let error = await #expect(throws: RPCError.self) {
                try await good.compute(region, input: input, parameters: ComputeParameters([:]), blockedDomains: domains,
                                       deadline: .seconds(30))
            }
            guard case .remote(let code, let text)? = error else {
                Issue.record("expected the server's BAD_REQUEST, got \(String(describing: error))")
                return
            }
            #expect(code == .badRequest)
            #expect(text == message)
            // The same call with the normalized domains the host sends is run.
            let output = try await good.compute(region, input: input, parameters: ComputeParameters([:]),
                                                blockedDomains: ["example.com", "xn--bcher-kva.example"], deadline: .seconds(30))
            #expect(output.output.rowCount == 1)
        }
    }

    @Test func overloadIsAnsweredAtOnce() async throws {
        let tuples = try RemoteFixtures.descriptor("contacts.tuples")
        let slow = try RemoteFixtures.slowContacts()
        try await withServer(["--max-concurrency", "1"]) { server, _ in
            let client = try await RawTLSClient.connect(port: server.port, security: .tls(certificates.client))
            // Both requests in one write: the second is read while the first runs.
            try await client.send(RemoteEnvelopes.hello(id: 1),
                                  RemoteEnvelopes.compute(id: 2, tuples, input: slow),
                                  RemoteEnvelopes.compute(id: 3, tuples, input: try RemoteFixtures.contacts(count: 1)))
            #expect(try await client.nextEnvelope()?.requestID == 1)
            let refused = try await client.nextEnvelope()
            #expect(refused?.requestID == 3)
            #expect(refused?.error.code == .overloaded, "got \(RemoteEnvelopes.summary(refused))")
            let finished = try await client.nextEnvelope(timeout: .seconds(30))
            #expect(finished?.requestID == 2)
            guard case .computeResponse? = finished?.body else {
                Issue.record("the running call did not finish: \(RemoteEnvelopes.summary(finished))")
                return
            }
            // The refusal did not cost the connection.
            try await client.send(RemoteEnvelopes.ping(id: 4))
            #expect(try await client.nextEnvelope()?.requestID == 4)
            await client.close()
        }
    }

    private static func code(_ error: RPCError) -> Escrow_V1_Error.Code? {
        if case .remote(let code, _) = error { return code }
        return nil
    }
}
