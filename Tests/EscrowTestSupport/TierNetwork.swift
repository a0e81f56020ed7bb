import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Test hosts of the test's own: one network namespace per compute replica, joined to the test's
/// namespace by a veth pair, with addresses from 198.18.0.0/15 (RFC 2544's range for benchmarking
/// network devices, never routed on the internet). Nothing leaves the machine: each namespace's
/// default route leads back to the test's own end of its pair.
///
/// Replica `i` (1…) lives in namespace `escrow-tier-PID-i` at `198.18.S.(4i+2)`; the test's end
/// of its pair is `198.18.S.(4i+1)`, reachable from every replica.
///
/// Thread safety: create and remove from one task; the addresses may be read from any.
public final class TierNetwork: Sendable {
    public let replicas: Int
    private let tag: String
    private let subnet: Int

    /// Why namespaces cannot be made here (not root, no `ip`, the kernel refuses), or nil.
    public static let unavailableReason: String? = {
        guard getuid() == 0 else { return "needs root to create network namespaces (ip netns add)" }
        guard FileManager.default.isExecutableFile(atPath: ip) else { return "needs iproute2's \(ip)" }
        guard FileManager.default.isExecutableFile(atPath: haproxy) else { return "needs Debian's haproxy (\(haproxy))" }
        let probe = "escrow-probe-\(getpid())"
        guard (try? run([ip, "netns", "add", probe])) != nil else {
            return "this machine does not allow network namespaces (ip netns add failed)"
        }
        _ = try? run([ip, "netns", "delete", probe])
        return nil
    }()

    public static let ip = "/usr/sbin/ip"
    public static let haproxy = "/usr/sbin/haproxy"

    /// Creates `replicas` namespaces with their veth pairs, after removing those a test process
    /// that no longer runs left behind (killed before it could clean up).
    public init(replicas: Int) throws {
        self.replicas = replicas
        let pid = Int(getpid())
        tag = String(pid)
        subnet = 20 + pid % 200
        Self.removeLeftovers()
        do {
            for index in 1...replicas {
                let namespace = self.namespace(index)
                let outside = outsideLink(index), inside = "e\(pid % 100_000)n\(index)"
                try Self.run([Self.ip, "netns", "add", namespace])
                try Self.run([Self.ip, "link", "add", outside, "type", "veth", "peer", "name", inside])
                try Self.run([Self.ip, "link", "set", inside, "netns", namespace])
                try Self.run([Self.ip, "addr", "add", "\(gateway(index))/30", "dev", outside])
                try Self.run([Self.ip, "link", "set", outside, "up"])
                try Self.run([Self.ip, "-n", namespace, "addr", "add", "\(replicaHost(index))/30", "dev", inside])
                try Self.run([Self.ip, "-n", namespace, "link", "set", inside, "up"])
                try Self.run([Self.ip, "-n", namespace, "link", "set", "lo", "up"])
                try Self.run([Self.ip, "-n", namespace, "route", "add", "default", "via", gateway(index)])
            }
        } catch {
            remove()
            throw error
        }
    }

    public func namespace(_ index: Int) -> String { "escrow-tier-\(tag)-\(index)" }
    /// The test's end of replica `index`'s pair (interface names have at most 15 characters).
    private func outsideLink(_ index: Int) -> String { "e\((Int(tag) ?? 0) % 100_000)h\(index)" }
    /// The replica's own address, inside its namespace.
    public func replicaHost(_ index: Int) -> String { "198.18.\(subnet).\(4 * index + 2)" }
    /// The test's end of the replica's veth pair.
    public func gateway(_ index: Int) -> String { "198.18.\(subnet).\(4 * index + 1)" }
    /// What starts a program inside replica `index`'s namespace.
    public func launcher(_ index: Int) -> [String] { [Self.ip, "netns", "exec", namespace(index)] }

    /// Deletes the namespaces (and with them the pairs). Kill the processes inside first.
    public func remove() {
        for index in 1...replicas {
            _ = try? Self.run([Self.ip, "netns", "delete", namespace(index)])
            _ = try? Self.run([Self.ip, "link", "delete", outsideLink(index)])
        }
    }

    /// Deletes the namespaces of test processes that are gone (`escrow-tier-PID-N` without a
    /// process PID); deleting a namespace deletes its veth pair too.
    static func removeLeftovers() {
        guard let listed = try? run([ip, "netns", "list"]) else { return }
        for line in listed.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            let parts = name.split(separator: "-")
            guard parts.count == 4, parts[0] == "escrow", parts[1] == "tier", let owner = Int(parts[2]),
                  !FileManager.default.fileExists(atPath: "/proc/\(owner)") else { continue }
            _ = try? run([ip, "netns", "delete", name])
        }
    }

    /// Runs a command to its end (its pipes read while it runs: `ChildProcess`); throws with what
    /// it printed when it fails.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let outcome = try ChildProcess.run(URL(fileURLWithPath: arguments[0]), Array(arguments.dropFirst()))
        guard outcome.status == 0 else {
            throw FixtureError("\(arguments.joined(separator: " ")) failed (\(outcome.status)): \(outcome.errors)\(outcome.output)")
        }
        return outcome.output
    }
}

/// HAProxy in TCP mode in front of the replicas, with health checks on their `/readyz`.
public final class BalancerProcess: Sendable {
    public let port: Int
    private let process: Process
    private let folder: URL

    /// Starts `haproxy` on 127.0.0.1 (a free port) balancing over `backends` (`HOST:PORT`), each
    /// checked on `healthPort` every 300 ms (down after 2 failures, up after 2 successes).
    public init(backends: [String], healthPort: Int) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-haproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = try Self.freePort()
        let servers = backends.enumerated().map { "    server r\($0.offset + 1) \($0.element) check" }.joined(separator: "\n")
        let configuration = """
            global
                maxconn 4096
            defaults
                mode tcp
                timeout connect 2s
                timeout client 300s
                timeout server 300s
                retries 3
                option redispatch
            frontend tier
                bind 127.0.0.1:\(port)
                default_backend replicas
            backend replicas
                balance roundrobin
                option httpchk GET /readyz
                default-server inter 300ms fall 2 rise 2 port \(healthPort)
            \(servers)

            """
        let file = folder.appendingPathComponent("haproxy.cfg")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: TierNetwork.haproxy)
        process.arguments = ["-f", file.path, "-db"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while clock.now < deadline {
            if Self.accepts(port: port) { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        stop()
        throw FixtureError("haproxy did not start listening on 127.0.0.1:\(port)")
    }

    public var address: String { "127.0.0.1:\(port)" }

    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        for _ in 0..<500 where process.isRunning { usleep(10_000) }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    /// A port nothing listens on now (bound to 0 and released).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw FixtureError("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw FixtureError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
