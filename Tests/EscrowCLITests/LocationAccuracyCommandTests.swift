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
}
