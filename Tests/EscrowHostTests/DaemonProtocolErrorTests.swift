@testable import EscrowHost
import EscrowDaemon
import EscrowWire
import EscrowTestSupport
import Foundation
import Logging
import SwiftProtobuf
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An app that breaks the framing hears why from the daemon before the connection closes, as a
/// client of `escrow-compute` does (docs/PROTOCOL.md, "Messages").
@Suite struct DaemonProtocolErrorTests {
    let logger = Logger(label: "test")

    /// Connects to the daemon's socket, sends `bytes`, and reads until the daemon closes.
    private static func exchange(_ bytes: [UInt8], socketPath: String) throws -> [UInt8] {
        let descriptor = try dial(socketPath)
        defer { close(descriptor) }
        try #require(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        return try readToEnd(descriptor)
    }

    /// A blocking connection to the daemon's socket whose reads give up after 60 s (a loaded
    /// machine running the whole suite can keep a daemon from answering for more than 10 s).
    private static func dial(_ socketPath: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path.copyBytes(from: Array(socketPath.utf8.prefix(path.count - 1)))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw ConnectFailed(path: socketPath)
        }
        return descriptor
    }

    private struct ConnectFailed: Error, CustomStringConvertible {
        let path: String
        var description: String { "cannot connect to \(path)" }
    }

    /// Everything the daemon sends on `descriptor` until it closes the connection.
    private static func readToEnd(_ descriptor: Int32) throws -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            try #require(count >= 0, "the daemon neither answered nor closed within 60 s")
            if count == 0 { return received }
            received += chunk.prefix(count)
        }
    }

    /// The one message in `bytes`, as an Envelope.
    private static func onlyEnvelope(_ bytes: [UInt8]) throws -> Escrow_V1_Envelope {
        try #require(bytes.count >= 4)
        let length = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        try #require(bytes.count == 4 + length, "expected exactly one message, got \(bytes.count) bytes")
        return try Escrow_V1_Envelope(serializedBytes: Array(bytes.dropFirst(4)))
    }

    @Test(arguments: [
        // Lengths over the 1 MiB maximum plus the 16 MiB a module may add: refused from the prefix
        // alone (the test sends nothing else, so an answer proves the daemon did not wait for the
        // bytes announced).
        ([0x7F, 0xFF, 0xFF, 0xFF], Escrow_V1_Error.Code.messageTooLarge),
        ([0x20, 0x00, 0x00, 0x00], .messageTooLarge),
        ([0x01, 0x10, 0x00, 0x01], .messageTooLarge),
        // A whole message whose bytes are not protobuf.
        ([0x00, 0x00, 0x00, 0x03, 0xFF, 0xFF, 0xFF], .badRequest),
    ] as [([UInt8], Escrow_V1_Error.Code)])
    func aBrokenMessageIsAnsweredThenTheConnectionCloses(bytes: [UInt8], code: Escrow_V1_Error.Code) async throws {
        try await TemporaryHome.with { temporary in
            let daemon = try HostDaemon(host: try EscrowHost(home: temporary.home, logger: logger), limits: .forTests, logger: logger)
            try await daemon.start()
            let path = daemon.socketPath
            // Blocking socket calls, off the test's task.
            let exchange = await Task.detached { try Self.exchange(bytes, socketPath: path) }.result
            await daemon.shutdown()
            let received = try exchange.get()
            let envelope = try Self.onlyEnvelope(received)
            #expect(envelope.requestID == 0)
            #expect(envelope.error.code == code, "\(envelope)")
            #expect(!envelope.error.message.isEmpty)
        }
    }

    /// Starts a daemon in a temporary home with `limits`, runs `body` with its socket path off the
    /// test's task (blocking socket calls), and shuts the daemon down.
    private func withDaemon<T: Sendable>(_ limits: ConnectionLimits,
                                         _ body: @escaping @Sendable (String) throws -> T) async throws -> T {
        try await TemporaryHome.with { temporary in
            let daemon = try HostDaemon(host: try EscrowHost(home: temporary.home, logger: logger), limits: limits, logger: logger)
            try await daemon.start()
            let path = daemon.socketPath
            let result = await Task.detached { try body(path) }.result
            await daemon.shutdown()
            return try result.get()
        }
    }

    @Test func anAppThatSendsNothingIsClosedAfterTheFirstRequestTimeout() async throws {
        let received = try await withDaemon(ConnectionLimits(firstRequestTimeout: .seconds(1))) { path in
            // Reads give up after 10 s: only the daemon closing ends this in time.
            try Self.exchange([], socketPath: path)
        }
        #expect(received.isEmpty, "closed without an answer")
    }

    @Test func connectionsOverTheMaximumAreClosedAndTheOthersServed() async throws {
        let ping: [UInt8] = try {
            var envelope = Escrow_V1_Envelope()
            envelope.requestID = 5
            envelope.ping = .with { $0.nonce = 77 }
            let payload: [UInt8] = try envelope.serializedBytes()
            return withUnsafeBytes(of: UInt32(payload.count).bigEndian) { Array($0) } + payload
        }()
        let (refused, pongs) = try await withDaemon(ConnectionLimits(maximumConnections: 2)) { path in
            let first = try Self.dial(path)
            let second = try Self.dial(path)
            defer {
                close(first)
                close(second)
            }
            // The third is accepted and closed at once: its read ends without a byte.
            let third = try Self.dial(path)
            defer { close(third) }
            let refused = try Self.readToEnd(third)
            var pongs: [UInt64] = []
            for descriptor in [first, second] {
                try #require(ping.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == ping.count)
                var answer = [UInt8](repeating: 0, count: 64)
                let count = answer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                try #require(count > 4, "no pong on a connection within the maximum")
                pongs.append(try Escrow_V1_Envelope(serializedBytes: Array(answer[4..<count])).pong.nonce)
            }
            return (refused, pongs)
        }
        #expect(refused.isEmpty)
        #expect(pongs == [77, 77])
    }

    /// Protobuf's varint.
    private static func varint(_ value: Int) -> [UInt8] { ProtobufVarint.encode(value) }

    /// The first bytes of a message `length` long: its length prefix, then `envelope`'s first bytes.
    private static func start(length: Int, _ envelope: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(length).bigEndian) { Array($0) } + envelope
    }

    /// The first bytes of a run request (request id 7) whose body is `bodyLength` long and begins
    /// with `fields`, in a message `length` long.
    private static func runRequest(length: Int, bodyLength: Int, _ fields: [UInt8]) -> [UInt8] {
        start(length: length, [0x08, 0x07, 0x52] + varint(bodyLength) + fields)
    }

    struct LongMessage: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let says: String
        var testDescription: String { name }
    }

    static let megabyte = 1 << 20
    static let app: [UInt8] = [0x0A, 15] + Array("org.example.big".utf8)

    /// Messages over the 1 MiB maximum that are not a run request with a module making up the
    /// difference, or whose module is over 16 MiB. The test sends only their first bytes: an answer
    /// proves the daemon told from them, without reading (or holding) the rest.
    static let longMessages: [LongMessage] = [
        LongMessage(name: "a 2 MiB ping", bytes: start(length: 2 * megabyte, [0x08, 0x07, 0x42]),
                    says: "a message of 2097152 bytes is over the maximum of 1048576 bytes, not counting the compute module "
                        + "a run request may carry (up to 16777216 bytes (16 MiB))"),
        LongMessage(name: "a run request whose app field is 2 MiB",
                    bytes: runRequest(length: 2 * megabyte, bodyLength: 2 * megabyte - 8, [0x0A] + varint(2 * megabyte - 16)),
                    says: "a message of 2097152 bytes is over the maximum of 1048576 bytes"),
        LongMessage(name: "a run request whose module is 1 MiB but whose other fields are 2 MiB",
                    bytes: runRequest(length: 3 * megabyte, bodyLength: 3 * megabyte - 8,
                                      app + [0x4A] + varint(megabyte)),
                    says: "a message of 3145728 bytes is over the maximum of 1048576 bytes"),
        LongMessage(name: "a run request whose module is one byte over 16 MiB",
                    bytes: runRequest(length: 16 * megabyte + 32, bodyLength: 16 * megabyte + 24,
                                      app + [0x4A] + varint(16 * megabyte + 1)),
                    says: "the module is 16777217 bytes; the escrow keeps modules of at most 16777216 bytes (16 MiB)"),
    ]

    @Test("a long message that a module does not account for is refused from its first bytes", arguments: longMessages)
    func aLongMessageIsRefusedFromItsFirstBytes(_ message: LongMessage) async throws {
        let received = try await withDaemon(.forTests) { path in try Self.exchange(message.bytes, socketPath: path) }
        let envelope = try Self.onlyEnvelope(received)
        #expect(envelope.requestID == 0)
        #expect(envelope.error.code == .messageTooLarge, "\(envelope)")
        #expect(envelope.error.message.hasPrefix(message.says), "\(envelope.error.message)")
    }

    @Test func aRunRequestWithAModuleOverTheRequestLimitIsReadAndAnswered() async throws {
        // 1.5 MiB of module bytes that are not WebAssembly: read whole, then refused for what they are.
        var request = Escrow_V1_RunRequest()
        request.app = "org.example.big"
        request.purpose = "A large module"
        request.accessSql = "SELECT latitude, longitude FROM Location"
        request.module = Data(repeating: 0x2A, count: 3 * Self.megabyte / 2)
        var envelope = Escrow_V1_Envelope()
        envelope.requestID = 7
        envelope.runRequest = request
        let payload: [UInt8] = try envelope.serializedBytes()
        let message = withUnsafeBytes(of: UInt32(payload.count).bigEndian) { Array($0) } + payload
        let answer = try await withDaemon(.forTests) { path in
            let descriptor = try Self.dial(path)
            defer { close(descriptor) }
            var sent = 0
            while sent < message.count {
                let count = message[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                try #require(count > 0, "the daemon stopped reading the request")
                sent += count
            }
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            func whole() -> Bool { received.count >= 4 && received.count >= 4 + received.prefix(4).reduce(0) { $0 << 8 | Int($1) } }
            while !whole() {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                try #require(count > 0, "the daemon closed or did not answer within 60 s")
                received += chunk.prefix(count)
            }
            return received
        }
        let reply = try Self.onlyEnvelope(answer)
        #expect(reply.requestID == 7, "answered under the request's id, the connection kept: \(reply)")
        #expect(reply.error.code == .invalidModule, "\(reply)")
        #expect(reply.error.message.contains("the module is not valid WebAssembly"), "\(reply.error.message)")
    }
}
