import EscrowCore
import EscrowFunctions
import EscrowWire
import EscrowStore
import Foundation
import NIOPosix

// The host daemon's memory: the real `escrow serve` process, idle and after many runs.
extension Suite {
    static let memoryRuns = 10_000

    /// One repetition's readings, in MiB.
    private struct DaemonSample {
        let idle: Double
        let idleAnonymous: Double
        let half: Double
        let full: Double
        let fullAnonymous: Double
        let peak: Double
    }

    private struct DaemonFixture {
        let scratch: ScratchHome
        let daemon: Process
        let socket: String
    }

    /// Per repetition: a fresh home seeded with 5000 contacts and 10,000 location rows, and the
    /// release `escrow` binary serving it (`escrow --home H serve`, a process of its own). Its
    /// resident set (VmRSS in /proc/PID/status) is read once it listens and has been idle for
    /// half a second; then an app connected to the daemon's socket asks for the location flow,
    /// the flow is approved with `escrow approve`, and the app makes 10,000 runs, one after the
    /// other, every answer checked; VmRSS is read after 5,000 and after 10,000 (each after
    /// 200 ms idle), and the peak (VmHWM) at the end. The daemon is stopped with SIGTERM (SIGKILL
    /// if it has not exited 5 s later) after every repetition, also when one fails.
    ///
    /// The app side speaks the daemon's protocol through `ComputeConnection.run`, the call the
    /// SDK's `Escrow.runFrame` makes (the benchmark package does not link the SDK module).
    func daemonMemory() async throws -> [FigureResult] {
        let escrow = try Self.escrowExecutable()
        let locations = RecordGenerator.locations(Self.locationRows)
        let contacts = self.contacts
        var request = Escrow_V1_RunRequest()
        request.app = "org.wikipedia.nearby"
        request.purpose = "show articles near me"
        request.accessSql = Self.locationSQL
        request.functionID = LocationRegion.id

        let samples = try await sampler.collect(
            setUp: { () async throws -> DaemonFixture in
                let scratch = try ScratchHome.initialized()
                let writer = try DataWriter(home: scratch.home)
                _ = try writer.insertContacts(contacts, containerID: "local")
                _ = try writer.insertLocations(locations)
                let daemon = Process()
                daemon.executableURL = escrow
                daemon.arguments = ["--home", scratch.home.url.path, "serve"]
                daemon.standardOutput = FileHandle.nullDevice
                daemon.standardError = FileHandle.nullDevice
                try daemon.run()
                let fixture = DaemonFixture(scratch: scratch, daemon: daemon,
                                            socket: scratch.home.url.appendingPathComponent("escrow.sock").path)
                do {
                    try await Self.waitUntilListening(fixture)
                } catch {
                    Self.stop(fixture.daemon)
                    throw error
                }
                return fixture
            },
            body: { fixture -> DaemonSample in
                try await Task.sleep(for: .milliseconds(500))
                let idle = try Self.memory(of: fixture.daemon)
                let app = try await ComputeConnection.connect(unixSocket: fixture.socket, group: MultiThreadedEventLoopGroup.singleton)
                do {
                    do {
                        _ = try await app.run(request, deadline: .seconds(30))
                        throw BenchError("the daemon ran a new flow before it was approved")
                    } catch RPCError.decision(.awaitingApproval, let flow, _) {
                        try Self.runEscrow(escrow, ["--home", fixture.scratch.home.url.path, "approve", flow])
                    }
                    let expected = try await app.run(request, deadline: .seconds(30)).output
                    guard expected.rowCount == 1 else { throw BenchError("location.region gave \(expected.rowCount) rows") }
                    var readings: [(resident: Double, anonymous: Double, peak: Double)] = []
                    for _ in 0..<2 {
                        for _ in 0..<(Self.memoryRuns / 2) {
                            guard try await app.run(request, deadline: .seconds(30)).output == expected else {
                                throw BenchError("a run through the daemon gave another answer")
                            }
                        }
                        try await Task.sleep(for: .milliseconds(200))
                        readings.append(try Self.memory(of: fixture.daemon))
                    }
                    await app.close()
                    return DaemonSample(idle: idle.resident, idleAnonymous: idle.anonymous, half: readings[0].resident,
                                        full: readings[1].resident, fullAnonymous: readings[1].anonymous, peak: readings[1].peak)
                } catch {
                    await app.close()
                    throw error
                }
            },
            tearDown: { fixture in
                Self.stop(fixture.daemon)
                fixture.scratch.remove()
            }
        )
        let half = Self.memoryRuns / 2
        return [
            FigureResult(name: "escrow serve RSS, idle", unit: .megabytes, values: samples.map(\.idle), target: 40),
            FigureResult(name: "  of which anonymous (RssAnon), idle", unit: .megabytes, values: samples.map(\.idleAnonymous)),
            FigureResult(name: "escrow serve RSS after \(half) runs", unit: .megabytes, values: samples.map(\.half)),
            FigureResult(name: "escrow serve RSS after \(Self.memoryRuns) runs", unit: .megabytes, values: samples.map(\.full),
                         target: 40),
            FigureResult(name: "  of which anonymous (RssAnon), after \(Self.memoryRuns) runs", unit: .megabytes,
                         values: samples.map(\.fullAnonymous)),
            FigureResult(name: "escrow serve RSS growth, \(half) → \(Self.memoryRuns) runs", unit: .megabytes,
                         values: samples.map { $0.full - $0.half }, target: 1),
            FigureResult(name: "escrow serve peak RSS (VmHWM)", unit: .megabytes, values: samples.map(\.peak)),
        ]
    }

    /// The release `escrow` binary (or another of the main package's executables, `product`),
    /// built from the main package's current sources into this package's build folder
    /// (`swift build -c release --package-path Benchmarks --product escrow`: the libraries are
    /// the ones escrow-bench links, so only the CLI is compiled; an up-to-date binary takes a few
    /// seconds to check).
    static func escrowExecutable(product: String = "escrow") throws -> URL {
        let benchmarks = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = ["swift", "build", "-c", "release", "--package-path", benchmarks.path, "--product", product]
        build.standardOutput = FileHandle.nullDevice
        try build.run()
        build.waitUntilExit()
        let binary = benchmarks.appendingPathComponent(".build/release/\(product)")
        guard build.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw BenchError("could not build \(binary.path): swift build -c release --package-path Benchmarks --product \(product)")
        }
        return binary
    }

    /// Runs `escrow` with `arguments` to completion; it must succeed.
    private static func runEscrow(_ escrow: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = escrow
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("escrow \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }

    /// Waits (up to 10 s) until the daemon accepts connections on its socket.
    private static func waitUntilListening(_ fixture: DaemonFixture) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while clock.now < deadline {
            guard fixture.daemon.isRunning else { throw BenchError("escrow serve exited with \(fixture.daemon.terminationStatus)") }
            if FileManager.default.fileExists(atPath: fixture.socket),
               let probe = try? await ComputeConnection.connect(unixSocket: fixture.socket, group: MultiThreadedEventLoopGroup.singleton) {
                await probe.close()
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchError("escrow serve did not listen on \(fixture.socket) within 10 s")
    }

    /// SIGTERM, then SIGKILL if the daemon (or another process) is still running 5 s later.
    static func stop(_ daemon: Process) {
        guard daemon.isRunning else { return }
        daemon.terminate()
        let deadline = Date().addingTimeInterval(5)
        while daemon.isRunning, Date() < deadline { usleep(10_000) }
        if daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
    }

    /// Resident memory of a running process, in MiB (/proc/PID/status): VmRSS, its anonymous
    /// part (RssAnon: heap, stacks) and the peak (VmHWM). The rest of VmRSS is file-backed: the
    /// pages of the binary and the shared libraries the process has touched.
    static func memory(of process: Process) throws -> (resident: Double, anonymous: Double, peak: Double) {
        let path = "/proc/\(process.processIdentifier)/status"
        guard process.isRunning, let status = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError("cannot read \(path): the process is not running")
        }
        func kilobytes(_ key: String) throws -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }),
                  let value = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Double($0) }) else {
                throw BenchError("\(path) has no \(key)")
            }
            return value
        }
        return (try kilobytes("VmRSS") / 1024, try kilobytes("RssAnon") / 1024, try kilobytes("VmHWM") / 1024)
    }
}
