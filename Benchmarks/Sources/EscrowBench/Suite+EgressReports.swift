import EscrowCore
import EscrowEgress
import EscrowFunctions
import EscrowHost
import EscrowReports
import EscrowStore
import Foundation
import Synchronization

// Issue 14: `escrow report apps` and `escrow report html` over 100,000 recorded requests.
extension Suite {
    static let reportRuns = 10_000
    static let reportRequestsPerRun = 10

    /// A wall clock the benchmark sets: the audit entries of the report home are spread over the
    /// 30 days before the run.
    final class SettableClock: WallClock {
        private let seconds: Mutex<Double>

        init(_ seconds: Double) { self.seconds = Mutex(seconds) }

        var secondsSince1970: Double { seconds.withLock { $0 } }

        func set(_ value: Double) { seconds.withLock { $0 = value } }
    }

    /// Builds one escrow home (untimed but reported): a flow per app of `EgressWorkload`,
    /// approved, then 10,000 runs of 10 requests each, classified by the escrow's classifier and
    /// written through `AuditLog.append`, one run every 259 s over the last 30 days. Then, per
    /// repetition, what `escrow report apps` and `escrow report html` do in process (state
    /// database opened, requests and runs read, metrics computed; for html the flows listed and
    /// the page written to a file), and, when the release `escrow` binary is found, the two
    /// commands run as processes against the home.
    func egressReports() async throws -> [FigureResult] {
        let scratch = try ScratchHome.initialized()
        defer { scratch.remove() }
        let built = try Self.buildReportHome(scratch.home)
        let outFolder = scratch.home.url.appendingPathComponent("report-out", isDirectory: true)
        try FileManager.default.createDirectory(at: outFolder, withIntermediateDirectories: true)
        let expectedRequests = Self.reportRuns * Self.reportRequestsPerRun
        let appCount = EgressWorkload.apps.count
        let home = scratch.home
        let binary = Self.escrowBinary()
        if let binary {
            print("egress reports: running \(binary.path) against the report home as well")
        } else {
            print("egress reports: no release escrow binary found (set ESCROW_BIN, or build it: swift build -c release "
                  + "--package-path Benchmarks --product escrow); timing the reports in process only")
        }
        var pageBytes = 0
        let clock = ContinuousClock()
        struct Sample { var apps = 0.0, html = 0.0, appsProcess: Double?, htmlProcess: Double? }
        let samples = try await sampler.collect(
            setUp: { () },
            body: { _ -> Sample in
                var sample = Sample()
                sample.apps = try clock.measure {
                    let log = EgressLog(state: try StateDatabase(home: home))
                    let metrics = AppMetrics.compute(runs: try log.runs(), requests: try log.requests())
                    guard metrics.count == appCount, metrics.reduce(0, { $0 + $1.requests }) == expectedRequests else {
                        throw BenchError("report apps: \(metrics.count) apps, \(metrics.reduce(0) { $0 + $1.requests }) requests")
                    }
                }.seconds
                let out = outFolder.appendingPathComponent("report.html")
                sample.html = try clock.measure {
                    let state = try StateDatabase(home: home)
                    let log = EgressLog(state: state)
                    let requests = try log.requests()
                    let metrics = AppMetrics.compute(runs: try log.runs(), requests: requests)
                    let flows = try FlowStore(state: state).list().map(Self.reportSummary)
                    let report = TransparencyReport(generated: state.clock.now().text, flows: flows, apps: metrics, requests: requests)
                    let page = Data(report.html().utf8)
                    try page.write(to: out, options: .atomic)
                    guard requests.count == expectedRequests, flows.count == appCount else {
                        throw BenchError("report html: \(requests.count) requests, \(flows.count) flows")
                    }
                    pageBytes = page.count
                }.seconds
                if let binary {
                    sample.appsProcess = try Self.timeProcess(binary, ["report", "apps", "--json", "--home", home.url.path])
                    sample.htmlProcess = try Self.timeProcess(binary, ["report", "html", "--out", outFolder.appendingPathComponent("cli.html").path,
                                                                       "--home", home.url.path])
                }
                return sample
            },
            tearDown: { _ in }
        )
        print("egress reports: \(expectedRequests) requests of \(Self.reportRuns) runs, \(appCount) apps, "
              + "\(built.trackerRequests) to trackers (\(Int((Double(built.trackerRequests) / Double(expectedRequests) * 100).rounded())) %), "
              + "\(built.hosts) hosts; HTML page \(pageBytes / 1024) KB")
        let total = "\(expectedRequests / 1000)k requests"
        var results = [
            FigureResult(name: "audit append, one run with 10 recorded requests (\(Self.reportRuns) runs, untimed set-up)",
                         unit: .microseconds, seconds: [built.appendSeconds / Double(Self.reportRuns)]),
            FigureResult(name: "report apps over \(total), in process (open, read, compute)", unit: .milliseconds,
                         seconds: samples.map(\.apps), target: 1000),
            FigureResult(name: "report html over \(total), in process (+ flows, page, write)", unit: .milliseconds,
                         seconds: samples.map(\.html), target: 1000),
        ]
        let appsProcess = samples.compactMap(\.appsProcess)
        let htmlProcess = samples.compactMap(\.htmlProcess)
        if !appsProcess.isEmpty, !htmlProcess.isEmpty {
            results += [
                FigureResult(name: "escrow report apps --json over \(total) (process)", unit: .milliseconds, seconds: appsProcess,
                             target: 1000),
                FigureResult(name: "escrow report html --out over \(total) (process)", unit: .milliseconds, seconds: htmlProcess,
                             target: 1000),
            ]
        }
        return results
    }

    struct ReportHome {
        let appendSeconds: Double
        let trackerRequests: Int
        let hosts: Int
    }

    /// Fills `home` with the report workload; see `egressReports`.
    static func buildReportHome(_ home: EscrowHome) throws -> ReportHome {
        let day = 86_400.0
        let start = (Date().timeIntervalSince1970 - 30 * day).rounded(.down)
        let wallClock = SettableClock(start)
        let state = try StateDatabase(home: home, clock: wallClock)
        let flows = FlowStore(state: state)
        let classifier = EgressClassifier.shared()
        let trackerList = try classifier.lists.trackers.get()
        _ = try classifier.lists.suffixes.get()
        var flowIDs: [String] = []
        for app in EgressWorkload.apps {
            for host in app.firstParty + app.trackers {
                guard let name = HostName(host) else { throw BenchError("\(host) is not a host name") }
                guard (trackerList.match(name) != nil) == app.trackers.contains(host) else {
                    throw BenchError("\(host): the tracker lists say \(trackerList.match(name) ?? "no tracker")")
                }
            }
            let contacts = app.trackerRequestsPerTen == 0
            let request = DataflowRequest(app: app.id, purpose: app.purpose, access: contacts ? contactsSQL : locationSQL,
                                          compute: contacts ? ContactsDiscovery.id : WeatherCurrent.id)
            let function = try EscrowFunctions.catalog.function(request.compute).descriptor
            let lineage = Lineage(Set(contacts
                ? [ColumnRead(table: "Contact", column: "givenName"), ColumnRead(table: "Contact", column: "familyName"),
                   ColumnRead(table: "Contact", column: "phoneNumbers")]
                : [ColumnRead(table: "Location", column: "latitude"), ColumnRead(table: "Location", column: "longitude")]))
            guard case .refused(.awaitingApproval(let flow)) = try flows.decide(FlowIdentity(request: request, function: function),
                                                                                 accessSQL: request.access, lineage: lineage) else {
                throw BenchError("a new flow was not pending")
            }
            try flows.approve(flow, .always)
            flowIDs.append(flow)
        }
        let audit = AuditLog(state: state)
        var random = SeededGenerator(seed: 1402)
        let step = 30 * day / Double(reportRuns)
        var appendSeconds = 0.0
        var trackerRequests = 0
        var hosts = Set<String>()
        let clock = ContinuousClock()
        for run in 0..<reportRuns {
            let index = Int.random(in: 0..<EgressWorkload.apps.count, using: &random)
            let app = EgressWorkload.apps[index]
            let time = start + Double(run) * step
            wallClock.set(time)
            var observations: [EgressObservation] = []
            for position in 0..<reportRequestsPerRun {
                let tracker = position >= reportRequestsPerRun - app.trackerRequestsPerTen
                let host = random.pick(tracker ? app.trackers : app.firstParty)
                let blocked = tracker && Int.random(in: 0..<50, using: &random) == 0
                observations.append(EgressObservation(
                    time: Int64(time) + Int64(position / 4), host: host, method: tracker ? "POST" : "GET",
                    bytesOut: Int.random(in: 150...2_000, using: &random), bytesIn: blocked ? 0 : Int.random(in: 200...60_000, using: &random),
                    status: blocked ? nil : (tracker ? 204 : 200), blocked: blocked, sentData: position == 0 && app.trackerRequestsPerTen > 0))
                hosts.insert(host)
            }
            var facts = AuditDraft(flowID: flowIDs[index], app: app.id, purpose: app.purpose,
                                   functionID: app.trackerRequestsPerTen == 0 ? ContactsDiscovery.id : WeatherCurrent.id,
                                   outcome: .ok, destination: "device")
            facts.reads = app.trackerRequestsPerTen == 0
                ? ["Contact.familyName", "Contact.givenName", "Contact.phoneNumbers"] : ["Location.latitude", "Location.longitude"]
            facts.rowsRead = app.trackerRequestsPerTen == 0 ? 500 : 1
            facts.bytesToCompute = app.trackerRequestsPerTen == 0 ? 40_000 : 16
            facts.durationMs = Double.random(in: 30...400, using: &random)
            facts.outputSHA256 = String(repeating: "ab", count: 32)
            facts.egress = classifier.classify(observations, policy: EgressPolicy())
            trackerRequests += facts.egress.count { $0.isTracker }
            appendSeconds += try clock.measure { try audit.append(facts) }.seconds
        }
        return ReportHome(appendSeconds: appendSeconds, trackerRequests: trackerRequests, hosts: hosts.count)
    }

    /// What `escrow report html` lists of a flow (the CLI's `ReportRendering.summary`, which the
    /// benchmark cannot import: its words matter to the page's size only).
    static func reportSummary(_ flow: FlowRecord) -> FlowSummary {
        FlowSummary(id: flow.id, app: flow.app, purpose: flow.purpose, functionID: flow.function.id,
                    place: flow.destination.hasPrefix("server:") ? "on compute server \(flow.destination.dropFirst(7))" : "on this device",
                    decision: flow.status == .approved ? "approved, always, until you revoke it" : flow.status.rawValue,
                    status: flow.status.rawValue, reads: flow.reads)
    }

    /// The release `escrow` binary: `$ESCROW_BIN`, or beside this executable (`swift build -c
    /// release --package-path Benchmarks --product escrow` puts it there), or the main package's
    /// release build. Nil when none exists.
    static func escrowBinary() -> URL? {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["ESCROW_BIN"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        }
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(me.deletingLastPathComponent().appendingPathComponent("escrow"))
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/release/escrow"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `binary` with `arguments` (output discarded) and returns the wall time from launch to
    /// exit, in seconds.
    static func timeProcess(_ binary: URL, _ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let clock = ContinuousClock()
        let started = clock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = (clock.now - started).seconds
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw BenchError("\(binary.lastPathComponent) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(message)")
        }
        return elapsed
    }
}
