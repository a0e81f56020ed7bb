import Foundation
import Synchronization

/// Runs a program to completion and captures what it printed.
public enum ChildProcess {
    /// What a finished process left.
    public struct Outcome: Sendable {
        public let status: Int32
        public let output: String
        public let errors: String
    }

    /// Runs `executable` with `arguments`, reading both pipes while it runs (`PipeDrain`).
    public static func run(_ executable: URL, _ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = PipeDrain(output.fileHandleForReading), err = PipeDrain(errors.fileHandleForReading)
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: out.collected(), as: UTF8.self),
                       errors: String(decoding: err.collected(), as: UTF8.self))
    }

    /// `run` on a thread of its own: waiting for a process must not block the task pool that
    /// in-process servers (the daemon) answer the process from, nor Dispatch's worker pool.
    public static func runOffPool(_ executable: URL, _ arguments: [String]) async throws -> Outcome {
        try await offPool { try run(executable, arguments) }
    }
}

/// Runs blocking `work` (waiting for a process, reading its output) on a thread of its own. Tests
/// run concurrently on a task pool of one thread per core; a test that blocked one of them would
/// stall every other test, and with them the in-process servers and clients they time.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}
