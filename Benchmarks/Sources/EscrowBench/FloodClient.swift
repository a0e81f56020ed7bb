import Foundation

/// The child side of the `flood` group: a process that holds plain TCP connections to a compute
/// server open, as a stranger without a certificate would (`escrow-bench --flood-client`).
///
/// It opens `connections` non-blocking connections to 127.0.0.1:`port`; every `partialHelloEvery`-th
/// one sends the first 40 bytes of a TLS ClientHello and nothing more, the others send nothing.
/// Once a second, it reopens those the server closed (refused over its maximum, or timed out),
/// so the flood lasts `seconds`; then it closes them all and prints one line: how many
/// connections it opened and how many the server closed. At most `20 × connections` are opened in
/// all, so the churn is bounded.
enum FloodClient {
    static let partialClientHello: [UInt8] =
        [0x16, 0x03, 0x01, 0x00, 0xC8, 0x01, 0x00, 0x00, 0xC4, 0x03, 0x03] + [UInt8](repeating: 0x5A, count: 29)

    static func run(port: Int, connections: Int, seconds: Double, partialHelloEvery: Int = 8) {
        var descriptors = [Int32](repeating: -1, count: connections)
        var opened = 0
        var closedByServer = 0
        let deadline = Date().addingTimeInterval(seconds)
        var nextReopen = Date.distantPast
        var scratch = [UInt8](repeating: 0, count: 256)
        while Date() < deadline {
            if Date() >= nextReopen {
                for index in descriptors.indices where descriptors[index] < 0 && opened < 20 * connections {
                    descriptors[index] = open(port: port, partialHello: opened % partialHelloEvery == 0)
                    opened += 1
                }
                nextReopen = Date().addingTimeInterval(1)
            }
            var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 100) > 0 else { continue }
            for (index, entry) in polled.enumerated() where entry.fd >= 0 && entry.revents != 0 {
                let count = scratch.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EAGAIN { continue }
                // The server closed it (EOF or reset), or answered the partial hello with an alert.
                close(entry.fd)
                descriptors[index] = -1
                closedByServer += 1
            }
        }
        for descriptor in descriptors where descriptor >= 0 { close(descriptor) }
        FileHandle.standardOutput.write(Data("opened \(opened) closed-by-server \(closedByServer)\n".utf8))
    }

    /// A non-blocking connection to 127.0.0.1:`port` under way, or -1.
    private static func open(port: Int, partialHello: Bool) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 || errno == EINPROGRESS else {
            close(descriptor)
            return -1
        }
        if partialHello {
            // On loopback the connection is usually up at once; if not, this one stays silent.
            _ = partialClientHello.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        return descriptor
    }
}
