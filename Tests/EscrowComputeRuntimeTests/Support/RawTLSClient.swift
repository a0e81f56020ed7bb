import EscrowWire
import NIOCore
import NIOPosix
import NIOSSL
import SwiftProtobuf
import Synchronization

/// A byte-level client for hostile-peer tests: it writes whatever bytes it is given (over TLS or
/// plain TCP), collects what comes back, and tells when the server closed the connection.
///
/// Well-behaved clients use `ComputeConnection`; this one exists to send what that one never would
/// (a plaintext hello, an oversized length prefix, half a message, garbage).
///
/// Thread safety: all methods may be called from any task.
final class RawTLSClient: Sendable {
    /// How the client talks to the server.
    enum Security: Sendable {
        /// Plain TCP on the TLS port.
        case plaintext
        /// TLS 1.3 trusting `certificateAuthority`, presenting `certificate`/`privateKey` when given.
        case tls(certificate: String?, privateKey: String?, certificateAuthority: String, serverName: String)

        /// TLS with a client's files.
        static func tls(_ files: TLSFiles, serverName: String = "localhost") -> Security {
            .tls(certificate: files.certificate, privateKey: files.privateKey,
                 certificateAuthority: files.certificateAuthority, serverName: serverName)
        }
    }

    private let channel: any Channel
    private let inbox: Inbox

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    /// Opens a TCP connection to 127.0.0.1:`port`, with a TLS client handler on top unless
    /// `security` is `.plaintext`. The TLS handshake runs in the background; bytes written
    /// before it completes are sent after it.
    static func connect(port: Int, security: Security) async throws -> RawTLSClient {
        let inbox = Inbox()
        let context: NIOSSLContext?
        let serverName: String?
        switch security {
        case .plaintext:
            context = nil
            serverName = nil
        case .tls(let certificate, let privateKey, let certificateAuthority, let name):
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.minimumTLSVersion = .tlsv13
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificateAuthority))
            if let certificate, let privateKey {
                configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) }
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: privateKey, format: .pem))
            }
            context = try NIOSSLContext(configuration: configuration)
            serverName = name
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHandler(Collector(inbox: inbox))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawTLSClient(channel: channel, inbox: inbox)
    }

    /// Writes `bytes` as they are. A write on a connection the server already closed is not an
    /// error here (hostile tests expect that); it is simply lost.
    func write(_ bytes: [UInt8]) async {
        try? await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    /// Writes `envelopes` as messages, all in one write.
    func send(_ envelopes: Escrow_V1_Envelope...) async throws {
        var bytes: [UInt8] = []
        for envelope in envelopes { bytes += try Self.message(envelope) }
        await write(bytes)
    }

    /// `envelope` as a frame: 4-byte big-endian length + the serialized Envelope.
    static func message(_ envelope: Escrow_V1_Envelope) throws -> [UInt8] {
        let payload: [UInt8] = try envelope.serializedBytes()
        return lengthPrefix(payload.count) + payload
    }

    /// The 4-byte big-endian length prefix of a message.
    static func lengthPrefix(_ length: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: length).bigEndian) { Array($0) }
    }

    /// The next whole message the server sent, decoded.
    ///
    /// - Returns: nil when the connection closed (or `timeout` passed) before a whole message came.
    /// - Throws: when the message does not hold an Envelope.
    func nextEnvelope(timeout: Duration = .seconds(10)) async throws -> Escrow_V1_Envelope? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let payload = inbox.takeFrame() { return try Escrow_V1_Envelope(serializedBytes: payload) }
            if inbox.isClosed || clock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits for the server to close the connection.
    ///
    /// - Returns: whether it closed within `timeout`.
    func waitUntilClosed(timeout: Duration = .seconds(10)) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !inbox.isClosed, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return inbox.isClosed
    }

    /// Whether a whole message has arrived that `nextEnvelope` has not returned yet.
    var hasWholeMessage: Bool { inbox.hasWholeMessage }

    /// Whether the connection is closed.
    var isClosed: Bool { inbox.isClosed }

    /// The TLS or socket error that ended the connection, if one did.
    var error: (any Error)? { inbox.error }

    /// Closes the connection (a TLS close_notify first when TLS is up).
    func close() async {
        try? await channel.close()
    }

    deinit {
        channel.close(promise: nil)
    }

    /// What the server sent, and whether the connection is still open.
    private final class Inbox: Sendable {
        private struct State {
            var bytes: [UInt8] = []
            var closed = false
            var error: (any Error)?
        }

        private let state = Mutex(State())

        func append(_ buffer: ByteBuffer) { state.withLock { $0.bytes += buffer.readableBytesView } }
        func fail(_ error: any Error) { state.withLock { if $0.error == nil { $0.error = error } } }
        func markClosed() { state.withLock { $0.closed = true } }
        var isClosed: Bool { state.withLock { $0.closed } }
        var error: (any Error)? { state.withLock { $0.error } }

        var hasWholeMessage: Bool {
            state.withLock { state in
                guard state.bytes.count >= 4 else { return false }
                return state.bytes.count >= 4 + state.bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            }
        }

        /// Removes and returns the payload of the first whole message, if one has arrived.
        func takeFrame() -> [UInt8]? {
            state.withLock { state in
                guard state.bytes.count >= 4 else { return nil }
                let length = state.bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
                guard state.bytes.count >= 4 + length else { return nil }
                let payload = Array(state.bytes[4..<(4 + length)])
                state.bytes.removeFirst(4 + length)
                return payload
            }
        }
    }

    /// Feeds the inbox (event-loop confined).
    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private let inbox: Inbox

        init(inbox: Inbox) { self.inbox = inbox }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            inbox.append(unwrapInboundIn(data))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            inbox.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            inbox.markClosed()
            context.fireChannelInactive()
        }
    }
}
