import EscrowTestSupport
import Foundation
import Testing

/// `escrow approve --location-accuracy`, `escrow run --location-accuracy`, and what `flows`,
/// `flows show` and `audit show` say about how precisely a flow sees where the individual is.
@Suite("escrow approve --location-accuracy: how precisely a flow sees your location")
struct LocationAccuracyCommandTests {
    static let sql = "SELECT longitude, latitude, altitude FROM Location ORDER BY timestamp DESC LIMIT 1"

    static func homeWithTrack() async throws -> ScratchHome {
        let home = ScratchHome()
        guard try await home.escrow("init").succeeded, try await home.escrow("import", "locations", SampleData.track).succeeded else {
            home.remove()
            throw RunErrorTests.SetupFailed()
        }
        return home
    }

    @Test("exact by default and shown so; lowered to 2km on the same flow; the app gets a masked point")
    func lowering() async throws {
        let home = try await Self.homeWithTrack()
        defer { home.remove() }
        let pending = try await home.run(sql: Self.sql, compute: "identity")
        let flow = try #require(pending.pendingFlow, "\(pending)")

        let table = try await home.escrow("flows")
        #expect(table.outputLines.first?.contains("LOCATION") == true, "\(table)")
        #expect(table.outputLines.dropFirst().first?.contains("your exact location") == true, "\(table)")
        let shown = try await home.escrow("flows", "show", flow)
        for mention in ["Your location", "the app gets your exact location (exact)", "escrow approve \(flow) --location-accuracy city"] {
            #expect(shown.standardOutput.contains(mention), "\(mention) in \(shown)")
        }

        #expect(try await home.escrow("approve", flow).succeeded)
        let exact = try #require(FrameJSON(try await home.run(sql: Self.sql, compute: "identity").standardOutput))
        let lowered = try await home.escrow("approve", flow, "--location-accuracy", "2km")
        #expect(lowered.succeeded, "\(lowered)")
        #expect(lowered.standardOutput.contains("always, until you revoke it (as before)"), "\(lowered)")
        #expect(lowered.standardOutput.contains("a point within 2 km of your location (2km) — your choice"), "\(lowered)")
        let masked = try #require(FrameJSON(try await home.run(sql: Self.sql, compute: "identity").standardOutput))
        #expect(masked.rows.count == 1 && exact.rows.count == 1)
        let stored = try #require(exact.rows.first?[0] as? Double), given = try #require(masked.rows.first?[0] as? Double)
        #expect(stored != given, "the longitude is masked")
        #expect(exact.rows.first?[2] is Double, "altitude is stored: \(exact.rows)")
        #expect(masked.rows.first?[2] is NSNull, "altitude is dropped: \(masked.rows)")

        let flows = try #require(try await home.escrow("flows", "--json").jsonArray)
        #expect(flows.count == 1, "lowering is a decision on the same flow")
        let location = try #require(flows.first?["location"] as? [String: Any])
        #expect(location["accuracy"] as? String == "2km")
        #expect(location["chosen"] as? String == "2km")
        let audit = try #require(try await home.escrow("audit", "--json").jsonArray)
        let facts = try #require(audit.last?["location"] as? [String: Any])
        #expect(facts["accuracy"] as? String == "2km" && facts["runs"] as? Int == 1)
        let entry = try await home.escrow("audit", "show", String(audit.count))
        #expect(entry.standardOutput.contains("Location:") && entry.standardOutput.contains("2km (radius"), "\(entry)")
        #expect(try await home.escrow("audit", "verify").succeeded)
    }

    @Test("an accuracy asked for by the app is part of the flow; the individual sees it")
    func askedByTheApp() async throws {
        let home = try await Self.homeWithTrack()
        defer { home.remove() }
        let pending = try await home.run(sql: Self.sql, compute: "identity", extra: ["--location-accuracy", "city"])
        let flow = try #require(pending.pendingFlow, "\(pending)")
        let shown = try await home.escrow("flows", "show", flow)
        #expect(shown.standardOutput.contains("the app gets the centre of your city (city) — as the app asked"), "\(shown)")
        let other = try await home.run(sql: Self.sql, compute: "identity", extra: ["--location-accuracy", "region"])
        #expect(other.pendingFlow != nil && other.pendingFlow != flow, "another ask is another flow: \(other)")
    }

    @Test("an accuracy that is none is refused, saying what is accepted, and nothing changes",
          arguments: ["nearby", "5 miles", "50m", "-1km", "1e3m", "city region"])
    func refused(_ accuracy: String) async throws {
        let home = try await Self.homeWithTrack()
        defer { home.remove() }
        let flow = try #require(try await home.run(sql: Self.sql, compute: "identity").pendingFlow)
        // `--option=VALUE`, so a value starting with '-' reaches the escrow's own check.
        let approve = try await home.escrow("approve", flow, "--location-accuracy=\(accuracy)")
        #expect(approve.status == 1, "\(approve)")
        #expect(approve.standardError.contains("location") && approve.standardError.contains("city"), "\(approve)")
        let flows = try #require(try await home.escrow("flows", "--json").jsonArray)
        #expect(flows.first?["status"] as? String == "pending", "a refused accuracy approves nothing")
        let run = try await home.run(sql: Self.sql, compute: "identity", extra: ["--location-accuracy=\(accuracy)"])
        #expect(run.status == 1, "\(run)")
    }

    // MARK: What flows show says is dropped

    @Test("flows show names the columns an accuracy below exact drops, and what horizontalAccuracy holds", arguments: [
        ("exact", nil), ("2km", "; horizontalAccuracy holds the radius"), ("city", "; horizontalAccuracy is empty"),
        ("country", "; horizontalAccuracy is empty"),
    ] as [(String, String?)])
    func droppedLine(_ accuracy: String, _ horizontal: String?) async throws {
        let home = try await Self.homeWithTrack()
        defer { home.remove() }
        let flow = try #require(try await home.run(sql: Self.sql, compute: "identity").pendingFlow)
        try #require(try await home.escrow("approve", flow, "--location-accuracy", accuracy).succeeded)

        let shown = try await home.escrow("flows", "show", flow)
        let location = EgressCommandTests.section("Your location", of: shown.standardOutput)
        let dropped = location.filter { $0.contains("dropped:") }
        guard let horizontal else {
            #expect(dropped.isEmpty, "nothing is dropped at exact: \(shown)")
            return
        }
        #expect(dropped == ["  photos' coordinates the same way; dropped: altitude, verticalAccuracy, speed, course, floor" + horizontal],
                "\(shown)")
        let json = try #require(try await home.escrow("flows", "show", flow, "--json").jsonObject?["location"] as? [String: Any])
        #expect(json["dropped"] as? [String] == ["Location.altitude", "Location.verticalAccuracy", "Location.speed", "Location.course",
                                                  "Location.floor"], "\(json)")
    }

    // MARK: location.k and location.minimum-percent

    /// A home whose one location fix is on the Bolivian altiplano: 1 km around it holds nobody.
    static func sparseHome() async throws -> ScratchHome {
        let home = ScratchHome()
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("altiplano-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: csv) }
        do {
            try Data("timestamp,latitude,longitude\n2025-01-01T12:00:00Z,-19.0,-67.9\n".utf8).write(to: csv)
            guard try await home.escrow("init").succeeded, try await home.escrow("import", "locations", csv.path).succeeded else {
                throw RunErrorTests.SetupFailed()
            }
        } catch {
            home.remove()
            throw error
        }
        return home
    }

    @Test("escrow config set location.k decides how many requests the app's service gets from a sparse place")
    func locationK() async throws {
        let platform = try await PlatformServiceProcess.start()
        defer { platform.stop() }
        let home = try await Self.sparseHome()
        defer { home.remove() }
        let weather = ["--param", "service=\(platform.baseURL)"]
        let latest = "SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 1"
        let flow = try #require(try await home.run(sql: latest, compute: "weather.current", extra: weather).pendingFlow)
        try #require(try await home.escrow("approve", flow, "--location-accuracy", "1km").succeeded)

        for (k, runs) in [(nil, 10), ("3", 3), ("1", 1), ("50", 50), (nil, 10)] as [(String?, Int)] {
            let change = if let k { try await home.escrow("config", "set", "location.k", k) }
                else { try await home.escrow("config", "unset", "location.k") }
            #expect(change.succeeded, "\(change)")
            #expect(try await home.escrow("config", "get", "location.k").outputLines == [k ?? "10"])
            let run = try await home.run(sql: latest, compute: "weather.current", extra: weather)
            #expect(run.succeeded, "k = \(k ?? "default"): \(run)")
            let entry = try #require(try await home.escrow("audit", "--json").jsonArray?.last)
            let location = try #require(entry["location"] as? [String: Any], "\(entry)")
            #expect(location["runs"] as? Int == runs, "k = \(k ?? "default"): \(location)")
            #expect((entry["egress"] as? [Any])?.count == runs, "the weather service got \(runs) requests: \(entry)")
        }
        let refused = try await home.escrow("config", "set", "location.k", "51")
        #expect(refused.status == 1 && refused.standardError.contains("from 1 (no dummy runs) to 50"), "\(refused)")
    }

    @Test("escrow config set location.minimum-percent keeps a masked point that far from where you are")
    func locationMinimumPercent() async throws {
        let home = try await Self.homeWithTrack()
        defer { home.remove() }
        let latest = "SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 1"
        func point(_ outcome: EscrowProcess.Outcome) throws -> (latitude: Double, longitude: Double) {
            let frame = try #require(FrameJSON(outcome.standardOutput), "\(outcome)")
            let latitude = try #require(frame.rows.first?[0] as? Double), longitude = try #require(frame.rows.first?[1] as? Double)
            return (latitude, longitude)
        }
        let truth = try point(try await home.runApproved(sql: latest, compute: "identity", purpose: "Where you are exactly"))
        // Six flows, six masks: each answer moves when the setting does, and stays within [r, A].
        let purposes = (1...6).map { "Where you are, roughly (\($0))" }
        var before: [(latitude: Double, longitude: Double)] = []
        for purpose in purposes {
            let flow = try #require(try await home.run(sql: latest, compute: "identity", purpose: purpose).pendingFlow)
            try #require(try await home.escrow("approve", flow, "--location-accuracy", "1km").succeeded)
            before.append(try point(try await home.run(sql: latest, compute: "identity", purpose: purpose)))
        }
        for masked in before {
            #expect((100 - 1...1000 + 1).contains(Self.meters(truth, masked)), "the default r is 10 % of 1 km")
        }

        let set = try await home.escrow("config", "set", "location.minimum-percent", "50")
        #expect(set.succeeded, "\(set)")
        #expect(set.standardOutput.contains("never nearer than 50 % of the approved radius"), "\(set)")
        for (purpose, earlier) in zip(purposes, before) {
            let masked = try point(try await home.run(sql: latest, compute: "identity", purpose: purpose))
            let distance = Self.meters(truth, masked)
            #expect((500 - 1...1000 + 1).contains(distance), "\(purpose): \(distance) m from the truth, nearer than 50 % of 1 km")
            #expect(masked != earlier, "\(purpose): the answer did not change with the setting")
        }
        let refused = try await home.escrow("config", "set", "location.minimum-percent", "51")
        #expect(refused.status == 1 && refused.standardError.contains("from 1 to 50"), "\(refused)")
    }

    /// Great-circle distance in meters (haversine on a sphere of the Earth's mean radius, as
    /// docs/LOCATION.md measures).
    static func meters(_ a: (latitude: Double, longitude: Double), _ b: (latitude: Double, longitude: Double)) -> Double {
        let φ1 = a.latitude * .pi / 180, φ2 = b.latitude * .pi / 180
        let Δφ = φ2 - φ1, Δλ = (b.longitude - a.longitude) * .pi / 180
        let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }
}
