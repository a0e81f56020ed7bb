import EscrowCore
import EscrowDaemon
import EscrowHost
import EscrowModules
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// The example apps, as real processes, against the real daemon and platform service.
@Suite struct ExampleAppTests {
    /// Runs an example app (off the task pool, see `ChildProcess.runOffPool`).
    static func run(_ executable: String, _ arguments: [String]) async throws -> ChildProcess.Outcome {
        try await ChildProcess.runOffPool(try BuiltExecutable.url(named: executable), arguments)
    }

    /// A daemon over a new home that `prepare` fills, with `server` registered as `compute-1` when
    /// given, for `body`; the daemon is stopped afterwards, also when `body` throws.
    static func withDaemon(prepare: (TemporaryHome, Logger) throws -> Void,
                           server: (ComputeServerProcess, DevCertificates)? = nil,
                           _ body: (HostDaemon) async throws -> Void) async throws {
        let logger = Logger(label: "test")
        try await TemporaryHome.with { temporary in
            try prepare(temporary, logger)
            let host = try EscrowHost(home: temporary.home, logger: logger)
            if let (process, certificates) = server { try host.register(process, certificates) }
            let daemon = try HostDaemon(host: host, limits: .forTests, logger: logger)
            try await daemon.start()
            do {
                try await body(daemon)
            } catch {
                await daemon.shutdown()
                throw error
            }
            await daemon.shutdown()
        }
    }

    /// The platform service and a daemon over a seeded home, for `body`; both are stopped
    /// afterwards, also when `body` throws.
    static func withPlatformAndDaemon(_ body: (PlatformServiceProcess, HostDaemon) async throws -> Void) async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await withDaemon(prepare: { temporary, _ in try temporary.seed() }) { try await body(platform, $0) }
    }

    @Test func areaAppBringsItsOwnModuleAndRunsItOnTheDeviceAndOnTheComputeServer() async throws {
        let module = try ExampleModules.url("location-bounds").path
        try await ComputeServerProcess.with { server, certificates in
            try await Self.withDaemon(prepare: { temporary, _ in try temporary.seed() }, server: (server, certificates)) { daemon in
                for (place, extra) in [("device", [String]()), ("compute-1", ["--server", "compute-1"])] {
                    let arguments = ["--module", module, "--socket", daemon.socketPath] + extra
                    let first = try await Self.run("EscrowAreaApp", arguments)
                    #expect(first.status == 2, "\(place): \(first.output) \(first.errors)")
                    let flow = try #require(try daemon.host.flows.list(status: .pending).first)
                    #expect(flow.isModule)
                    #expect(flow.function.id == "example.location-bounds")
                    try daemon.host.flows.approve(flow.id, .always)
                    let second = try await Self.run("EscrowAreaApp", arguments)
                    #expect(second.status == 0, "\(place): \(second.errors)")
                    #expect(second.output.hasPrefix("The area you moved around in: latitude "), "\(second.output)")
                    #expect(second.output.contains("(\(SampleRecords.locations.count) places)"), "\(second.output)")
                    let entry = try #require(try daemon.host.audit.entries().last)
                    #expect(entry.facts.moduleSHA256 == flow.function.codeDigest)
                    #expect(entry.facts.destination == (place == "device" ? "device" : "server:compute-1"))
                }
                #expect(try daemon.host.modules.list().map(\.manifest.id) == ["example.location-bounds"])
            }
        }
    }

    @Test func weatherAppIsPendingThenApprovedThenShowsTheWeather() async throws {
        try await Self.withPlatformAndDaemon { platform, daemon in
            let arguments = ["--service", platform.baseURL, "--socket", daemon.socketPath]

            let first = try await Self.run("EscrowWeatherApp", arguments)
            #expect(first.status == 2)
            let flow = try #require(try daemon.host.flows.list(status: .pending).first?.id)
            #expect(first.output.contains("escrow approve \(flow)"))

            try daemon.host.flows.approve(flow, .always)
            let second = try await Self.run("EscrowWeatherApp", arguments)
            #expect(second.status == 0, "\(second.errors)")
            #expect(second.output.hasPrefix("Weather where you are: "))
            #expect(second.output.contains(" °C, "))
            // The app asks for city accuracy: the function saw the centre of a city of 15,000+.
            let location = try #require(try daemon.host.audit.entries().last?.facts.location)
            #expect(location.accuracy == "city" && (location.k ?? 0) >= 15_000 && location.runs == 1)

            // A different service is a different dataflow: pending again.
            let elsewhere = try await Self.run("EscrowWeatherApp", ["--service", "http://127.0.0.1:9", "--socket", daemon.socketPath])
            #expect(elsewhere.status == 2)
            #expect(try daemon.host.audit.verify() == .intact(entries: 3))
        }
    }

    @Test func contactDiscoveryOnTheComputeServerReturnsOnlyMatches() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await ComputeServerProcess.with { server, certificates in
            try await Self.withDaemon(prepare: { temporary, logger in
                let contacts = BuiltExecutable.packageRoot.appendingPathComponent("Examples/SampleData/contacts.vcf")
                _ = try Importer(home: temporary.home, logger: logger).importContacts(from: contacts)
            }, server: (server, certificates)) { daemon in
                let host = daemon.host
                let arguments = ["--directory", platform.baseURL, "--server", "compute-1", "--socket", daemon.socketPath]

                let first = try await Self.run("EscrowContactDiscoveryApp", arguments)
                #expect(first.status == 2, "\(first.errors)")
                let flow = try #require(try host.flows.list(status: .pending).first)
                #expect(first.output.contains("escrow approve \(flow.id)"))
                #expect(flow.destination == "server:compute-1")
                #expect(flow.reads == ["Contact.phoneNumbers"])

                try host.flows.approve(flow.id, .always)
                let second = try await Self.run("EscrowContactDiscoveryApp", arguments)
                #expect(second.status == 0, "\(second.errors)")
                let lines = second.output.split(separator: "\n").map(String.init)
                #expect(lines.first == "5 of your contacts use Example Messenger:")
                #expect(Set(lines.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
                    == ["(555) 555-0111", "(555) 555-0121", "+49 30 5550104", "(555) 555-0181", "+90 555 555 0251"])
                let entry = try #require(try host.audit.entries().last)
                #expect(entry.facts.destination == "server:compute-1")
                #expect(entry.facts.bytesSent > 0)
            }
        }
    }

    @Test func nearbyArticlesGetsOnlyTheAreaAndShowsTitles() async throws {
        try await Self.withPlatformAndDaemon { platform, daemon in
            let arguments = ["--service", platform.baseURL, "--socket", daemon.socketPath]
            let first = try await Self.run("EscrowNearbyArticlesApp", arguments)
            #expect(first.status == 2, "\(first.errors)")
            let flow = try #require(try daemon.host.flows.list(status: .pending).first)
            #expect(first.output.contains("escrow approve \(flow.id)"))
            try daemon.host.flows.approve(flow.id, .always)
            let second = try await Self.run("EscrowNearbyArticlesApp", arguments)
            #expect(second.status == 0, "\(second.errors)")
            // The seeded latest fix is on the University of Chicago's campus; the app asks for 1 km
            // accuracy, so the area is around a point within 1 km of it (another for every home's
            // secret): the campus or the museum 1.3 km away is in it, never the Loop or Berlin.
            #expect(flow.requestedAccuracy == .radius(meters: 1000))
            #expect(second.output.contains("University of Chicago") || second.output.contains("Museum of Science and Industry"),
                    "\(second.output)")
            #expect(!second.output.contains("Brandenburg Gate"))
            #expect(!second.output.contains("Willis Tower"), "10 km away: outside a 2 km area")
            let location = try #require(try daemon.host.audit.entries().last?.facts.location)
            #expect(location.accuracy == "1km")
        }
    }

    @Test func photoLabelsOnTheDeviceAndTheServerAskingForMoreIsANewFlowAndADenialIsRespected() async throws {
        try await ComputeServerProcess.with { server, certificates in
            try await Self.withDaemon(prepare: { temporary, logger in
                let photos = BuiltExecutable.packageRoot.appendingPathComponent("Examples/SampleData/photos")
                _ = try Importer(home: temporary.home, logger: logger).importPhotos(from: photos)
            }, server: (server, certificates)) { daemon in
                let host = daemon.host
                let socket = ["--socket", daemon.socketPath]

                // The latest six pictures: five summer scenes and a screenshot.
                let first = try await Self.run("EscrowPhotoLabelsApp", ["--limit", "6"] + socket)
                #expect(first.status == 2, "\(first.errors)")
                let flow = try #require(try host.flows.list(status: .pending).first)
                #expect(first.output.contains("escrow approve \(flow.id)"))
                try host.flows.approve(flow.id, .always)

                let device = try await Self.run("EscrowPhotoLabelsApp", ["--limit", "6"] + socket)
                #expect(device.status == 0, "\(device.errors)")
                let lines = device.output.split(separator: "\n").map(String.init)
                #expect(lines.first == "Labelled 6 pictures on this device:")
                #expect(lines.contains { $0.contains("320×240") && $0.contains("sky, vegetation") })
                #expect(lines.contains { $0.contains("320×240") && $0.contains("warm light") })
                #expect(lines.contains { $0.contains("320×240") && $0.contains("dark, night") })
                #expect(lines.contains { $0.contains("320×240 white") && $0.contains("document") })
                #expect(lines.contains { $0.hasPrefix("Look-alikes: #") }, "the two meadow pictures")

                // More pictures than approved: a different query, so a new flow, pending.
                let more = try await Self.run("EscrowPhotoLabelsApp", ["--limit", "50"] + socket)
                #expect(more.status == 2, "\(more.errors)")
                let moreFlow = try #require(try host.flows.list(status: .pending).first)
                #expect(moreFlow.id != flow.id)
                #expect(more.output.contains("escrow approve \(moreFlow.id)"))
                try host.flows.deny(moreFlow.id, reason: "only my latest pictures")
                let denied = try await Self.run("EscrowPhotoLabelsApp", ["--limit", "50"] + socket)
                #expect(denied.status == 3)
                #expect(denied.output.contains("You declined labelling"))
                #expect(denied.output.contains("only my latest pictures"))

                // On the compute server: another destination, approved on its own; the same labels.
                let remoteArguments = ["--limit", "6", "--server", "compute-1"] + socket
                #expect(try await Self.run("EscrowPhotoLabelsApp", remoteArguments).status == 2)
                let remoteFlow = try #require(try host.flows.list(status: .pending).first)
                #expect(remoteFlow.destination == "server:compute-1")
                try host.flows.approve(remoteFlow.id, .once)
                let remote = try await Self.run("EscrowPhotoLabelsApp", remoteArguments)
                #expect(remote.status == 0, "\(remote.errors)")
                let remoteLines = remote.output.split(separator: "\n").map(String.init)
                #expect(remoteLines.first == "Labelled 6 pictures on the escrow's compute server compute-1:")
                #expect(Array(remoteLines.dropFirst()) == Array(lines.dropFirst()))
                let entry = try #require(try host.audit.entries().last)
                #expect(entry.facts.destination == "server:compute-1")
                #expect(entry.facts.bytesSent > 40_000, "the pictures went to the server")
                #expect(try host.audit.verify() == .intact(entries: 6))
            }
        }
    }

    @Test func thirtyTwoAppProcessesAtOnceThroughOneDaemonLoseNoAuditEntry() async throws {
        try await Self.withPlatformAndDaemon { platform, daemon in
            let arguments = ["--service", platform.baseURL, "--socket", daemon.socketPath]
            #expect(try await Self.run("EscrowWeatherApp", arguments).status == 2)
            let flow = try #require(try daemon.host.flows.list(status: .pending).first)
            try daemon.host.flows.approve(flow.id, .always)
            let outcomes = try await withThrowingTaskGroup(of: ChildProcess.Outcome.self) { group in
                for _ in 0..<32 { group.addTask { try await Self.run("EscrowWeatherApp", arguments) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { $0.status == 0 && $0.output.hasPrefix("Weather where you are: ") })
            let answered = try daemon.host.audit.entries(AuditFilter(outcome: .ok))
            #expect(answered.count == 32)
            #expect(Set(answered.compactMap(\.facts.caller)).count == 32, "each app process is its own caller (uid and pid)")
            #expect(try daemon.host.audit.verify() == .intact(entries: 33))
        }
    }
}
