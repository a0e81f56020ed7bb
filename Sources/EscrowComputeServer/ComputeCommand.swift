import ArgumentParser
import EscrowComputeRuntime
import EscrowFunctions
import EscrowNetwork
import EscrowModules
import EscrowWire
import Foundation
import Logging

/// `escrow-compute`: the escrow operator's compute server.
@main
struct ComputeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "escrow-compute",
        abstract: "Run registered compute functions for escrow hosts over mutual TLS.",
        discussion: """
            Clients must present a certificate signed by the escrow CA (--client-ca). The server
            prints "listening on HOST:PORT" once it accepts connections, and shuts down
            gracefully on SIGTERM or SIGINT (running calls finish first).

            With --witness-store DIR the server is also an audit witness: it countersigns
            escrow hosts' audit heads with its own key (DIR/witness-key, created on first
            start) and keeps the latest ones per host certificate in DIR (docs/AUDIT.md).

            Example:
              escrow-compute --listen 0.0.0.0:7443 --cert server.pem \\
                --key server-key.pem --client-ca ca.pem
            """
    )

    @Option(help: ArgumentHelp("Address to listen on; port 0 picks a free port.", valueName: "HOST:PORT"))
    var listen: String

    @Option(help: ArgumentHelp("The server's certificate chain (PEM).", valueName: "FILE"))
    var cert: String

    @Option(help: ArgumentHelp("The server's private key (PEM).", valueName: "FILE"))
    var key: String

    @Option(name: .customLong("client-ca"), help: ArgumentHelp("The escrow CA client certificates must be signed by (PEM).", valueName: "FILE"))
    var clientCA: String

    @Option(name: .customLong("max-message"), help: ArgumentHelp("Largest message accepted, in bytes.", valueName: "BYTES"))
    var maximumMessageLength = RPCLimits.defaultMaximumMessageLength

    /// `--max-frame`, the former name of `--max-message`: still accepted so that existing deployments
    /// keep working, and hidden from the help.
    @Option(name: .customLong("max-frame"), help: .hidden)
    var deprecatedMaximumFrameLength: Int?

    /// The largest message accepted: `--max-message`, or `--max-frame` when only the old name is given.
    private var maximumMessage: Int { deprecatedMaximumFrameLength ?? maximumMessageLength }

    @Option(name: .customLong("max-concurrency"), help: ArgumentHelp("Compute calls running at once; more are answered OVERLOADED.", valueName: "N"))
    var maximumConcurrency = 2 * ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .customLong("max-connections"),
            help: ArgumentHelp("Connections open at once; more are closed as soon as they are accepted (default: half the descriptor limit, at most 4096).",
                               valueName: "N"))
    var maximumConnections: Int?

    @Option(name: .customLong("handshake-timeout"), help: ArgumentHelp("Seconds a client has to finish its TLS handshake.", valueName: "SECONDS"))
    var handshakeTimeout = 10.0

    @Option(name: .customLong("first-request-timeout"),
            help: ArgumentHelp("Seconds a client has, after its handshake, to send its first request.", valueName: "SECONDS"))
    var firstRequestTimeout = 10.0

    @Option(name: .customLong("idle-timeout"),
            help: ArgumentHelp("Seconds a connection may go without a request while none of its calls runs.", valueName: "SECONDS"))
    var idleTimeout = 300.0

    @Option(name: .customLong("server-id"), help: "The id reported in the catalog.")
    var serverID = "escrow-compute"

    @Option(name: .customLong("witness-store"), help: ArgumentHelp("Also witness escrow hosts' audit heads, kept in this folder (created if missing).", valueName: "DIR"))
    var witnessStore: String?

    @Option(name: .customLong("resolve"),
            help: ArgumentHelp("Reach HOST at ADDRESS instead of through DNS, for the requests compute functions make (repeatable).",
                               valueName: "HOST=ADDRESS"))
    var resolve: [String] = []

    @Option(name: .customLong("allow-module"),
            help: ArgumentHelp("Run only compute modules with these SHA-256 digests (repeatable); without it, any valid module runs, sandboxed.",
                               valueName: "SHA256"))
    var allowedModules: [String] = []

    @Flag(name: .customLong("no-modules"), help: "Run no compute modules (calls of them are refused MODULE_REFUSED).")
    var noModules = false

    @Option(name: .customLong("module-cache"), help: ArgumentHelp("Compiled compute modules kept (least recently used dropped first).", valueName: "N"))
    var moduleCache = 64

    @Option(name: .customLong("module-fuel"), help: ArgumentHelp("Instructions one module run may execute.", valueName: "N"))
    var moduleFuel = ModuleLimits.default.fuel

    @Option(name: .customLong("module-memory-mb"), help: ArgumentHelp("Memory one module run may have, in MiB.", valueName: "MIB"))
    var moduleMemory = ModuleLimits.default.memoryBytes / 1024 / 1024

    @Option(name: .customLong("module-wall-time-ms"),
            help: ArgumentHelp("Wall-clock time one module run may take (and at most the call's deadline).", valueName: "MS"))
    var moduleWallTime = ModuleSandbox.milliseconds(ModuleLimits.default.wallTime)

    @Option(name: .customLong("health-listen"),
            help: ArgumentHelp("Also serve /healthz, /readyz and /metrics (Prometheus) over plain HTTP here; off by default.",
                               valueName: "HOST:PORT"))
    var healthListen: String?

    @Option(name: .customLong("readiness-drain-delay"),
            help: ArgumentHelp("On SIGTERM, how long /readyz answers 503 while calls are still taken, before draining.",
                               valueName: "SECONDS"))
    var readinessDrainDelay: Double = 0

    @Flag(name: .shortAndLong, help: "Log connections and errors (never payloads) to standard error.")
    var verbose = false

    /// The compute modules this server runs, from the options.
    var modulePolicy: ServerModulePolicy {
        ServerModulePolicy(
            acceptance: noModules ? .none : allowedModules.isEmpty ? .any : .only(Set(allowedModules.map { $0.lowercased() })),
            cacheCapacity: moduleCache,
            limits: ModuleLimits(fuel: moduleFuel, memoryBytes: moduleMemory * 1024 * 1024, wallTime: .milliseconds(moduleWallTime)))
    }

    func validate() throws {
        _ = try Self.hostAndPort(listen)
        if deprecatedMaximumFrameLength != nil, maximumMessageLength != RPCLimits.defaultMaximumMessageLength {
            throw ValidationError("--max-frame is the old name of --max-message; give --max-message only")
        }
        guard maximumMessage >= 1024 else {
            throw ValidationError("\(deprecatedMaximumFrameLength == nil ? "--max-message" : "--max-frame") must be at least 1024 bytes")
        }
        do {
            _ = try HostResolution(parsing: resolve)
        } catch {
            throw ValidationError("--resolve \(error)")
        }
        guard maximumConcurrency >= 1 else { throw ValidationError("--max-concurrency must be at least 1") }
        if noModules && !allowedModules.isEmpty { throw ValidationError("give --no-modules or --allow-module, not both") }
        for digest in allowedModules where !(digest.count == 64 && digest.allSatisfy(\.isHexDigit)) {
            throw ValidationError("--allow-module \(digest): give a module's SHA-256 as 64 hex digits (escrow modules list shows them)")
        }
        if let healthListen { _ = try Self.hostAndPort(healthListen, option: "--health-listen") }
        guard readinessDrainDelay >= 0 && readinessDrainDelay <= 600 else {
            throw ValidationError("--readiness-drain-delay must be from 0 to 600 seconds")
        }
        guard moduleCache >= 1 else { throw ValidationError("--module-cache must be at least 1") }
        guard ModuleLimits.fuelRange.contains(moduleFuel) else {
            throw ValidationError("--module-fuel must be from \(ModuleLimits.fuelRange.lowerBound) to \(ModuleLimits.fuelRange.upperBound)")
        }
        guard ModuleLimits.memoryMegabytesRange.contains(moduleMemory) else {
            throw ValidationError("--module-memory-mb must be from \(ModuleLimits.memoryMegabytesRange.lowerBound) to \(ModuleLimits.memoryMegabytesRange.upperBound)")
        }
        guard ModuleLimits.wallTimeMillisecondsRange.contains(moduleWallTime) else {
            throw ValidationError("--module-wall-time-ms must be from \(ModuleLimits.wallTimeMillisecondsRange.lowerBound) to \(ModuleLimits.wallTimeMillisecondsRange.upperBound)")
        }
        if let maximumConnections, maximumConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
        for (flag, seconds) in [("--handshake-timeout", handshakeTimeout), ("--first-request-timeout", firstRequestTimeout),
                                ("--idle-timeout", idleTimeout)] where !(seconds > 0 && seconds <= 86_400) {
            throw ValidationError("\(flag) must be a number of seconds above 0 and at most 86400 (a day)")
        }
    }

    static func hostAndPort(_ text: String, option: String = "--listen") throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("\(option) \(text): expected HOST:PORT, e.g. 127.0.0.1:7443")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("\(option) \(text): the host is missing") }
        return (host, port)
    }

    func run() async throws {
        MemoryTuning.reuseFreedMemoryForLargeFrames()
        var logger = Logger(label: "escrow-compute") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = verbose ? .info : .warning
        let (host, port) = try Self.hostAndPort(listen)
        var witness: AuditWitnessStore?
        if let witnessStore {
            do {
                let store = try AuditWitnessStore(folder: witnessStore)
                logger.info("witnessing audit heads", metadata: ["store": "\(witnessStore)", "key": "\(store.publicKeyHex)"])
                witness = store
            } catch {
                FileHandle.standardError.write(Data("escrow-compute: --witness-store \(witnessStore): \(error)\n".utf8))
                throw ExitCode.failure
            }
        }
        let server = ComputeServer(
            configuration: ComputeServerConfiguration(
                host: host, port: port, tls: TLSFiles(certificate: cert, privateKey: key, certificateAuthority: clientCA),
                serverID: serverID, maximumMessageLength: maximumMessage, maximumConcurrency: maximumConcurrency,
                connectionLimits: ConnectionLimits(maximumConnections: maximumConnections, handshakeTimeout: .seconds(handshakeTimeout),
                                                   firstRequestTimeout: .seconds(firstRequestTimeout), idleTimeout: .seconds(idleTimeout)),
                modules: modulePolicy,
                health: try healthListen.map { try Self.hostAndPort($0, option: "--health-listen") },
                readinessDrainDelay: .milliseconds(Int64(readinessDrainDelay * 1000))),
            catalog: EscrowFunctions.catalog, network: HTTPNetworkClient(resolve: try HostResolution(parsing: resolve)),
            witness: witness, logger: logger)
        do {
            let boundPort = try await server.start()
            if let healthPort = server.healthPort, let health = healthListen {
                // Before "listening on": a reader that waits for that line finds both.
                let healthHost = (try? Self.hostAndPort(health, option: "--health-listen").host) ?? host
                FileHandle.standardOutput.write(Data("health on \(healthHost):\(healthPort)\n".utf8))
            }
            FileHandle.standardOutput.write(Data("listening on \(host):\(boundPort)\n".utf8))
        } catch {
            // Setting up (TLS files, the address) fails with a reason that needs no "cannot connect" prefix.
            let reason = if case RPCError.connectionFailed(let reason) = error { reason } else { "\(error)" }
            FileHandle.standardError.write(Data("escrow-compute: \(reason)\n".utf8))
            throw ExitCode.failure
        }
        await ShutdownSignal.wait()
        await server.shutdown()
    }
}
