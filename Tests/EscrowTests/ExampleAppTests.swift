import EscrowHost
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// The example apps, as real processes, against the real daemon and platform service.
@Suite struct ExampleAppTests {
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = try BuiltExecutable.url(named: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test func weatherAppIsPendingThenApprovedThenShowsTheWeather() async throws {
        let platform = try PlatformServiceProcess()
        defer { platform.stop() }
        let logger = Logger(label: "test")
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let daemon = try HostDaemon(host: try EscrowHost(home: temporary.home, logger: logger), logger: logger)
            try await daemon.start()
            let arguments = ["--service", platform.baseURL, "--socket", daemon.socketPath]

            let first = try Self.run("EscrowWeatherApp", arguments)
            #expect(first.status == 2)
            let flow = try #require(try daemon.host.flows.list(status: .pending).first?.id)
            #expect(first.output.contains("escrow approve \(flow)"))

            try daemon.host.flows.approve(flow, .always)
            let second = try Self.run("EscrowWeatherApp", arguments)
            #expect(second.status == 0, "\(second.errors)")
            #expect(second.output.hasPrefix("Weather where you are: "))
            #expect(second.output.contains(" °C, "))

            // A different service is a different dataflow: pending again.
            let elsewhere = try Self.run("EscrowWeatherApp", ["--service", "http://127.0.0.1:9", "--socket", daemon.socketPath])
            #expect(elsewhere.status == 2)
            await daemon.shutdown()
            #expect(try daemon.host.audit.verify() == .intact(entries: 3))
        }
    }
}
