@testable import EscrowHost
import EscrowRPC
import EscrowTestSupport
import Foundation
import Logging
import SwiftProtobuf
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An app that breaks the framing hears why from the daemon before the connection closes, as a
/// client of `escrow-compute` does (docs/PROTOCOL.md, "Framing").
@Suite struct DaemonProtocolErrorTests {
    let logger = Logger(label: "test")

    /// Connects to the daemon's socket, sends `bytes`, and reads until the daemon closes.
    private static func exchange(_ bytes: [UInt8], socketPath: String) throws -> [UInt8] {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path.copyBytes(from: Array(socketPath.utf8.prefix(path.count - 1)))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(connected == 0, "cannot connect to \(socketPath)")
        try #require(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            try #require(count >= 0, "the daemon neither answered nor closed within 10 s")
            if count == 0 { return received }
            received += chunk.prefix(count)
        }
    }

    /// The one frame in `bytes`, as an Envelope.
    private static func onlyEnvelope(_ bytes: [UInt8]) throws -> Escrow_V1_Envelope {
        try #require(bytes.count >= 4)
        let length = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        try #require(bytes.count == 4 + length, "expected exactly one frame, got \(bytes.count) bytes")
        return try Escrow_V1_Envelope(serializedBytes: Array(bytes.dropFirst(4)))
    }

    @Test(arguments: [
        // A length over the 64 MiB maximum: refused before anything else is read.
        ([0x7F, 0xFF, 0xFF, 0xFF], Escrow_V1_Error.Code.frameTooLarge),
        // A whole frame whose bytes are not protobuf.
        ([0x00, 0x00, 0x00, 0x03, 0xFF, 0xFF, 0xFF], .badRequest),
    ] as [([UInt8], Escrow_V1_Error.Code)])
    func aBrokenFrameIsAnsweredThenTheConnectionCloses(bytes: [UInt8], code: Escrow_V1_Error.Code) async throws {
        try await TemporaryHome.with { temporary in
            let daemon = try HostDaemon(host: try EscrowHost(home: temporary.home, logger: logger), logger: logger)
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
}
