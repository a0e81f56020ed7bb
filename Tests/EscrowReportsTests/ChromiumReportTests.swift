import EscrowReports
import EscrowTestSupport
import Foundation
import Testing

/// The HTML report as a reader sees it: rendered by headless Chromium (Debian's `chromium`), with no
/// console message (no CSP violation, no invalid SVG, no script error), and a screenshot in which
/// the charts' colours are painted. Two negative controls show that each check can fail: a broken
/// page must produce console messages, and the empty report must paint no chart.
///
/// Set `ESCROW_REPORT_SCREENSHOT=/some/file.png` to keep the sample report's screenshot.
@Suite(.enabled(if: HeadlessChromium.isInstalled,
                "needs Debian's chromium to render the page (scripts/install-deps.sh installs it)"),
       .serialized,  // one browser at a time: several would crowd the two cores the other tests time themselves on
       .timeLimit(.minutes(3)))
struct ChromiumReportTests {
    /// The fills of the charts (the style sheet's `.s0`–`.s2`, `.tracker`, `.first-party`).
    static let chartColors: [(name: String, rgb: UInt32)] = [
        ("first app's bars", 0x0072B2), ("second app's bars", 0xE69F00), ("third app's bars", 0x009E73),
        ("tracker bars", 0xD55E00), ("first-party bars", 0x4C78A8),
    ]

    @Test func sampleReportRendersWithoutConsoleMessagesAndShowsTheCharts() async throws {
        try await withScratchFolder { scratch in
            let page = try write(TransparencyReportSamples.report().html(), to: scratch, name: "report.html")
            let screenshot = scratch.appendingPathComponent("shot.png")
            let outcome = try await HeadlessChromium.run(["--screenshot=\(screenshot.path)"], page: page, scratch: scratch,
                                                         windowSize: (1280, 2400))
            #expect(!outcome.timedOut, "chromium did not finish in time")
            #expect(outcome.status == 0, "chromium exited with \(outcome.status): \(outcome.errors)")
            let messages = HeadlessChromium.consoleMessages(in: outcome.errors)
            #expect(messages.isEmpty, "console messages:\n\(messages.joined(separator: "\n"))")

            let bytes = try [UInt8](Data(contentsOf: screenshot))
            if let keep = ProcessInfo.processInfo.environment["ESCROW_REPORT_SCREENSHOT"], !keep.isEmpty {
                try Data(bytes).write(to: URL(fileURLWithPath: keep))
            }
            let image = try PNGImage(bytes)
            #expect(image.width == 1280 && image.height == 2400)
            let counts = image.count(of: Self.chartColors.map(\.rgb))
            for color in Self.chartColors {
                #expect(counts[color.rgb, default: 0] > 500, "too few pixels of the \(color.name) (\(counts[color.rgb, default: 0]))")
            }
            #expect(image.distinctColors > 100, "the page looks blank: \(image.distinctColors) colours")
        }
    }

    @Test func renderedDocumentHoldsTheThreeChartsAndNoMarkupFromHostileText() async throws {
        try await withScratchFolder { scratch in
            let page = try write(TransparencyReportSamples.report().html(), to: scratch, name: "report.html")
            let outcome = try await HeadlessChromium.run(["--dump-dom"], page: page, scratch: scratch)
            #expect(!outcome.timedOut && outcome.status == 0, "chromium failed: \(outcome.errors)")
            let dom = outcome.output
            #expect(dom.ranges(of: "<svg ").count == 3)
            #expect(dom.ranges(of: "role=\"img\"><title>").count == 3)
            for title in ["Requests per day by app", "Tracker share per app", "Most contacted domains"] {
                #expect(dom.contains("<title>\(title)"), "no chart titled \(title)")
            }
            #expect(!dom.contains("<script"))
            #expect(!dom.contains("<img"))
            #expect(!dom.contains("<svg onload"))
            #expect(!dom.contains("\u{202E}"))
            #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    /// Broken pages that the console check must catch: a script error and an uncaught exception,
    /// an invalid SVG attribute, and loads the report's Content-Security-Policy refuses.
    static let brokenPages: [(page: String, expected: [String])] = [
        ("""
         <!doctype html><meta charset="utf-8"><p>broken</p>
         <svg width="10" height="10"><rect width="-5" height="x"/></svg>
         <script>console.error("deliberate console error"); undefinedFunction();</script>
         """, ["deliberate console error", "Uncaught ReferenceError", "<rect> attribute width"]),
        ("""
         <!doctype html><meta charset="utf-8">
         <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
         <p>broken</p><img src="https://example.invalid/x.png" alt=""><script>document.title = "ran";</script>
         """, ["Content Security Policy directive: \"img-src data:\"", "Executing inline script violates"]),
    ]

    @Test(arguments: 0..<brokenPages.count)
    func consoleCheckCatchesABrokenPage(index: Int) async throws {
        let broken = Self.brokenPages[index]
        try await withScratchFolder { scratch in
            let page = try write(broken.page, to: scratch, name: "broken.html")
            let outcome = try await HeadlessChromium.run(["--dump-dom"], page: page, scratch: scratch)
            let messages = HeadlessChromium.consoleMessages(in: outcome.errors).joined(separator: "\n")
            for expected in broken.expected {
                #expect(messages.contains(expected), "no console message with \(expected) in:\n\(outcome.errors)")
            }
        }
    }

    @Test func emptyReportRendersCleanlyWithoutCharts() async throws {
        try await withScratchFolder { scratch in
            let report = TransparencyReport(generated: "2026-11-20 09:30 UTC", flows: [], apps: [], requests: [])
            let page = try write(report.html(), to: scratch, name: "empty.html")
            let screenshot = scratch.appendingPathComponent("empty.png")
            let outcome = try await HeadlessChromium.run(["--screenshot=\(screenshot.path)"], page: page, scratch: scratch,
                                                         windowSize: (1280, 900))
            #expect(!outcome.timedOut && outcome.status == 0, "chromium failed: \(outcome.errors)")
            #expect(HeadlessChromium.consoleMessages(in: outcome.errors).isEmpty)
            // The pixel check's negative control: a page without charts has none of their colours.
            let image = try PNGImage([UInt8](Data(contentsOf: screenshot)))
            let counts = image.count(of: Self.chartColors.map(\.rgb))
            #expect(counts.values.allSatisfy { $0 == 0 }, "chart colours on a page without charts: \(counts)")
        }
    }

    /// The page `escrow report html --out FILE` writes from a real escrow home: the weather app's
    /// flow approved and run twice through the real `escrow` binary, its function asking the
    /// platform service for the weather and telling its analytics endpoint (a tracker), both
    /// names resolved to 127.0.0.1.
    @Test func aReportWrittenByTheEscrowFromRecordedRequestsRendersWithItsCharts() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await withScratchFolder { scratch in
            let escrow = try BuiltExecutable.url(named: "escrow")
            let home = ["--home", scratch.appendingPathComponent("home").path]
            let (weather, analytics) = ("api.weather.example.com", "ssl.google-analytics.com")
            let run = home + ["run", "--app", "org.example.weather", "--purpose", "Weather where you are",
                              "--sql", "SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 1",
                              "--compute", "weather.current", "--param", "service=http://\(weather):\(platform.port)",
                              "--param", "analytics=http://\(analytics):\(platform.port)/collect"]
            let track = BuiltExecutable.packageRoot.appendingPathComponent("Examples/SampleData/track.gpx").path
            for step in [["init"], ["import", "locations", track],
                         ["config", "set", "network.resolve", "\(weather)=127.0.0.1 \(analytics)=127.0.0.1"]] {
                let outcome = try await ChildProcess.runOffPool(escrow, home + step)
                try #require(outcome.status == 0, "escrow \(step.joined(separator: " ")): \(outcome.errors)")
            }
            let pending = try await ChildProcess.runOffPool(escrow, run)
            let flow = try #require(pending.errors.firstMatch(of: /dataflow ([0-9a-f]{8,}) is awaiting approval/)?.output.1,
                                    "the first run awaits approval: \(pending.errors)")
            try #require(try await ChildProcess.runOffPool(escrow, home + ["approve", String(flow)]).status == 0)
            for _ in 1...2 {
                let ran = try await ChildProcess.runOffPool(escrow, run)
                try #require(ran.status == 0, "the approved run: \(ran.errors)")
            }
            let page = scratch.appendingPathComponent("report.html")
            let written = try await ChildProcess.runOffPool(escrow, home + ["report", "html", "--out", page.path])
            try #require(written.status == 0, "escrow report html: \(written.errors)")

            let dom = try await HeadlessChromium.run(["--dump-dom"], page: page, scratch: scratch)
            #expect(!dom.timedOut && dom.status == 0, "chromium failed: \(dom.errors)")
            #expect(HeadlessChromium.consoleMessages(in: dom.errors).isEmpty, "\(dom.errors)")
            for title in ["Requests per day by app", "Tracker share per app", "Most contacted domains"] {
                #expect(dom.output.contains("<title>\(title)"), "no chart titled \(title)")
            }
            #expect(dom.output.contains("org.example.weather"))
            #expect(dom.output.contains("google-analytics.com"))

            let screenshot = scratch.appendingPathComponent("shot.png")
            let shot = try await HeadlessChromium.run(["--screenshot=\(screenshot.path)"], page: page, scratch: scratch,
                                                      windowSize: (1280, 2400))
            #expect(!shot.timedOut && shot.status == 0, "chromium failed: \(shot.errors)")
            #expect(HeadlessChromium.consoleMessages(in: shot.errors).isEmpty, "\(shot.errors)")
            let image = try PNGImage([UInt8](Data(contentsOf: screenshot)))
            // One app: its bars, and the tracker and first-party bars of the tracker share and domain charts.
            let painted = Self.chartColors.filter { ["first app's bars", "tracker bars", "first-party bars"].contains($0.name) }
            let counts = image.count(of: painted.map(\.rgb))
            for color in painted {
                #expect(counts[color.rgb, default: 0] > 100, "too few pixels of the \(color.name) (\(counts[color.rgb, default: 0]))")
            }
        }
    }

    // MARK: - Helpers

    private func write(_ html: String, to folder: URL, name: String) throws -> URL {
        let file = folder.appendingPathComponent(name)
        try Data(html.utf8).write(to: file)
        return file
    }

    /// Runs `body` with a new folder that is removed afterwards, whatever happens.
    private func withScratchFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }
}
