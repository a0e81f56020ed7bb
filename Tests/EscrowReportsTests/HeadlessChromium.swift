import EscrowTestSupport
import Foundation
import Synchronization

/// Debian's Chromium (`chromium`), run headless on a local page the way a reader would open the
/// report: each run with a fresh profile, no network (every host name fails to resolve), and a time
/// limit after which Chromium and its helper processes are killed.
///
/// Chromium logs every message of the page's console on stderr when given
/// `--enable-logging=stderr`, as lines like
/// `[…:INFO:CONSOLE:3] "Loading the image '…' violates the following Content Security Policy
/// directive: …", source: file:///….html (3)`, whatever the message's level: `console.error`, an
/// uncaught exception, a CSP violation and an invalid SVG attribute all look alike there.
/// `consoleMessages(in:)` picks them out.
enum HeadlessChromium {
    /// The browser: `chromium` on PATH, else `/usr/bin/chromium`; nil when it is not installed.
    static let executable: URL? = {
        let fileManager = FileManager.default
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/chromium"
            if fileManager.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return fileManager.isExecutableFile(atPath: "/usr/bin/chromium") ? URL(fileURLWithPath: "/usr/bin/chromium") : nil
    }()

    static var isInstalled: Bool { executable != nil }

    /// What one run left.
    struct Outcome: Sendable {
        /// The exit status; meaningless when `timedOut`.
        var status: Int32
        var timedOut: Bool
        var output: String
        var errors: String
    }

    /// Why Chromium could not be run.
    struct NotInstalled: Error, CustomStringConvertible {
        var description: String { "chromium is not installed (Debian package chromium; scripts/install-deps.sh)" }
    }

    /// Opens `page` headless with `arguments` (`--screenshot=…`, `--dump-dom`, …) added to the
    /// fixed ones, in a profile folder under `scratch`, and waits for Chromium to exit, at most
    /// `timeout`; then kills its whole process group (Chromium's helpers included) in any case.
    static func run(_ arguments: [String], page: URL, scratch: URL, timeout: Duration = .seconds(60),
                    windowSize: (width: Int, height: Int) = (1280, 2400)) async throws -> Outcome {
        guard let executable else { throw NotInstalled() }
        let profile = scratch.appendingPathComponent("profile-\(UUID().uuidString)")
        let fixed = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)",
            "--enable-logging=stderr", "--v=0", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--force-color-profile=srgb", "--hide-scrollbars",
            "--window-size=\(windowSize.width),\(windowSize.height)",
        ]
        return try await onThread {
            try runBlocking(executable, fixed + arguments + [page.absoluteString], timeout: timeout)
        }
    }

    /// The console messages in Chromium's stderr, and any line that reports an uncaught error or a
    /// refused load in another form.
    static func consoleMessages(in errors: String) -> [String] {
        errors.split(whereSeparator: \.isNewline).map(String.init).filter { line in
            line.contains(":CONSOLE") || line.contains("Uncaught") || line.contains("Refused to")
                || line.contains("Content Security Policy")
        }
    }

    private static func runBlocking(_ executable: URL, _ arguments: [String], timeout: Duration) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Foundation starts the child in a process group of its own: killing the group ends
        // Chromium's zygote, renderer and GPU processes too, which would otherwise hold the pipes.
        let group = process.processIdentifier
        defer { kill(-group, SIGKILL) }

        let collected = Collected()
        let drained = DispatchGroup()
        let outputHandle = output.fileHandleForReading, errorHandle = errors.fileHandleForReading
        drained.enter()
        Thread.detachNewThread {
            let data = PipeRead.toEnd(outputHandle)
            collected.output.withLock { $0 = data }
            drained.leave()
        }
        drained.enter()
        Thread.detachNewThread {
            let data = PipeRead.toEnd(errorHandle)
            collected.errors.withLock { $0 = data }
            drained.leave()
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let timedOut = exited.wait(timeout: .now() + seconds) == .timedOut
        kill(-group, SIGKILL)
        if timedOut { exited.wait() }
        _ = drained.wait(timeout: .now() + 10)
        return Outcome(status: process.terminationStatus, timedOut: timedOut,
                       output: String(decoding: collected.output.withLock { $0 }, as: UTF8.self),
                       errors: String(decoding: collected.errors.withLock { $0 }, as: UTF8.self))
    }

    /// What the pipe readers read.
    private final class Collected: Sendable {
        let output = Mutex(Data())
        let errors = Mutex(Data())
    }

    /// Runs blocking work (waiting for a process) on a thread of its own, never on the task pool
    /// the other tests share.
    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
