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

    /// Runs `executable` with `arguments`, reading both pipes to their end before waiting.
    public static func run(_ executable: URL, _ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Drain stderr on another thread so neither pipe can fill up and stall the child.
        let errorData = ErrorData()
        let drained = DispatchSemaphore(value: 0)
        let errorHandle = errors.fileHandleForReading
        DispatchQueue.global().async {
            errorData.value.withLock { $0 = errorHandle.readDataToEndOfFile() }
            drained.signal()
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                       errors: String(decoding: errorData.value.withLock { $0 }, as: UTF8.self))
    }

    /// `run` on a Dispatch thread: waiting for a process must not block the task pool that
    /// in-process servers (the daemon) answer the process from.
    public static func runOffPool(_ executable: URL, _ arguments: [String]) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try run(executable, arguments) })
            }
        }
    }

    /// What the stderr reader read.
    private final class ErrorData: Sendable {
        let value = Mutex(Data())
    }
}
