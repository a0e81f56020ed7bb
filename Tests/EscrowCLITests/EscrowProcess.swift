import EscrowTestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `escrow` executable as a real process, the way a user's shell would.
///
/// The child's environment is the test runner's, without `ESCROW_HOME` (so a developer's own
/// escrow is never touched), plus the overrides a test passes. The working directory is the
/// package root, so sample data can be named as `Examples/SampleData/…`.
///
/// Thread safety: `run` waits for the process on a thread of its own (`offPool`), never on the
/// task pool the tests share; concurrent calls from different tests are independent.
struct EscrowProcess {
    /// What the process left behind: its exit status and everything it wrote.
    struct Outcome: CustomStringConvertible, Sendable {
        let arguments: [String]
        let status: Int32
        let standardOutput: String
        let standardError: String
        let timedOut: Bool

        var succeeded: Bool { status == 0 && !timedOut }
        var outputLines: [String] { Self.lines(standardOutput) }
        var errorLines: [String] { Self.lines(standardError) }

        var description: String {
            "escrow \(arguments.joined(separator: " ")) → status \(status)\(timedOut ? " (timed out)" : "")\n"
                + "stdout:\n\(standardOutput)\nstderr:\n\(standardError)"
        }

        private static func lines(_ text: String) -> [String] {
            text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
        }
    }

    /// How long a run may take before the process is killed: a catch for hangs. Commands take
    /// milliseconds, but the whole suite at once on two cores, every test writing and syncing its
    /// own databases, has kept an `escrow init` past 60 s.
    static let timeout: Duration = .seconds(180)

    /// The package root.
    static let packageRoot: URL = BuiltExecutable.packageRoot

    /// Runs `escrow` with `arguments`; stdout and stderr are read while it runs (`PipeDrain`).
    ///
    /// - Parameters:
    ///   - arguments: the command line after `escrow`.
    ///   - environment: variables to set (or override) for this run.
    ///   - launcher: a program and its arguments that start `escrow` (e.g. `setpriv …`), or none.
    /// - Returns: the exit status and the captured output.
    /// - Throws: when the executable cannot be found or started.
    static func run(_ arguments: [String], environment: [String: String] = [:], launcher: [String] = []) async throws -> Outcome {
        try await offPool { try runBlocking(arguments, environment: environment, launcher: launcher) }
    }

    /// `run`, blocking the calling thread until the process exits.
    private static func runBlocking(_ arguments: [String], environment: [String: String], launcher: [String]) throws -> Outcome {
        let process = Process()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [try executable().path] + arguments
        } else {
            process.executableURL = try executable()
            process.arguments = arguments
        }
        process.currentDirectoryURL = packageRoot
        var variables = ProcessInfo.processInfo.environment
        variables.removeValue(forKey: "ESCROW_HOME")
        variables.merge(environment) { _, new in new }
        process.environment = variables

        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()

        let watchdog = Watchdog(pid: process.processIdentifier)
        watchdog.arm(after: timeout)

        let outputDrain = PipeDrain(output.fileHandleForReading), errorDrain = PipeDrain(error.fileHandleForReading)
        process.waitUntilExit()
        let timedOut = watchdog.disarm()

        return Outcome(
            arguments: arguments,
            status: process.terminationStatus,
            standardOutput: String(decoding: outputDrain.collected(), as: UTF8.self),
            standardError: String(decoding: errorDrain.collected(), as: UTF8.self),
            timedOut: timedOut
        )
    }

    /// The built `escrow` executable.
    static func executable() throws -> URL {
        try BuiltExecutable.url(named: "escrow")
    }
}

/// Kills a process that outlives its deadline; remembers whether it had to.
private final class Watchdog: Sendable {
    private let pid: pid_t
    /// `nil` while armed; `true`/`false` once fired or disarmed.
    private let state = Mutex<Bool?>(nil)

    init(pid: pid_t) { self.pid = pid }

    func arm(after timeout: Duration) {
        let nanoseconds = timeout.components.seconds * 1_000_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
            state.withLock { fired in
                guard fired == nil else { return }
                fired = true
                kill(pid, SIGKILL)
            }
        }
    }

    /// Stops the watchdog (the process has exited); returns whether it killed the process.
    func disarm() -> Bool {
        state.withLock { fired in
            if fired == nil { fired = false }
            return fired ?? false
        }
    }
}
