import Crypto
import EscrowCore
@testable import EscrowFunctions
import Foundation
import Testing

@Suite struct CodeDigestTests {
    static let sourceFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/EscrowFunctions")

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Recomputes the digest the build plugin generates: SHA-256 of the function's file, then of
    /// the support code (SHA-256 over the Support/ files in path order).
    static func expectedDigest(file: String) throws -> String {
        let support = try FileManager.default.contentsOfDirectory(atPath: sourceFolder.appendingPathComponent("Support").path)
            .filter { $0.hasSuffix(".swift") }
            .map { sourceFolder.appendingPathComponent("Support").appendingPathComponent($0).path }
            .sorted()
        var supportHash = SHA256()
        for path in support { supportHash.update(data: try Data(contentsOf: URL(fileURLWithPath: path))) }
        var hash = SHA256()
        hash.update(data: try Data(contentsOf: sourceFolder.appendingPathComponent(file)))
        hash.update(data: Data(supportHash.finalize()))
        return hex(hash.finalize())
    }

    @Test(arguments: [
        (Identity.codeDigest, "Identity.swift"),
        (ContactsTuples.codeDigest, "ContactsTuples.swift"),
        (LocationRegion.codeDigest, "LocationRegion.swift"),
        (PhotosSummary.codeDigest, "PhotosSummary.swift"),
        (WeatherCurrent.codeDigest, "WeatherCurrent.swift"),
        (ContactsDiscovery.codeDigest, "ContactsDiscovery.swift"),
        (ArticlesNearby.codeDigest, "ArticlesNearby.swift"),
        (PhotosLabels.codeDigest, "PhotosLabels.swift"),
    ])
    func digestFollowsTheSourceCode(digest: String, file: String) throws {
        #expect(digest == (try Self.expectedDigest(file: file)))
    }

    @Test func digestsDifferBetweenFunctions() {
        let digests = EscrowFunctions.catalog.descriptors.map(\.codeDigest)
        #expect(Set(digests).count == digests.count)
        #expect(digests.allSatisfy { $0.count == 64 })
    }

    @Test func catalogShipsThePaperFunctions() throws {
        #expect(EscrowFunctions.catalog.descriptors.map(\.id) == ["articles.nearby", "contacts.discovery", "contacts.tuples", "identity", "location.bounds", "location.region", "photos.labels", "photos.summary", "weather.current"])
        #expect(throws: CatalogError.unknownFunction("weather.magic", available: ["articles.nearby", "contacts.discovery", "contacts.tuples", "identity", "location.bounds", "location.region", "photos.labels", "photos.summary", "weather.current"])) {
            try EscrowFunctions.catalog.function("weather.magic")
        }
    }
}

@Suite struct FunctionBehaviourTests {
    func run(_ id: String, _ input: Frame, parameters: [String: String] = [:]) async throws -> Frame {
        try await EscrowFunctions.catalog.function(id)(input, context: ComputeContext(parameters: ComputeParameters(parameters)))
    }

    @Test func contactsTuplesGivesOneRowPerPhoneNumber() async throws {
        let input = try Frame(columns: [
            Column(name: "givenName", values: .string(["Ada", "Alan", "Grace"])),
            Column(name: "familyName", values: .string(["Lovelace", "", "Hopper"]), nulls: [false, true, false]),
            Column(name: "phoneNumbers", values: .string([
                #"[{"label":"mobile","value":"+1 555 0100"},{"label":null,"value":"+1 555 0101"}]"#,
                #"[{"label":"home","value":"+44 20 5550 0102"}]"#,
                "[]",
            ])),
        ])
        let output = try await run("contacts.tuples", input)
        #expect(output.columnNames == ["givenName", "familyName", "phoneNumber"])
        #expect(output.rowCount == 3)
        let phones = try output.column("phoneNumber")
        #expect((0..<3).map { phones.string(at: $0) } == ["+1 555 0100", "+1 555 0101", "+44 20 5550 0102"])
        #expect(try output.column("familyName").string(at: 2) == nil)
    }

    @Test func contactsTuplesRejectsInputWithoutItsColumns() async throws {
        let input = try Frame(columns: [Column(name: "givenName", values: .string(["Ada"]))])
        await #expect(throws: FrameError.missingColumn("familyName", available: ["givenName"])) {
            try await run("contacts.tuples", input)
        }
    }

    @Test func contactsTuplesRejectsMalformedPhoneNumbers() async throws {
        let input = try Frame(columns: [
            Column(name: "givenName", values: .string(["Ada"])),
            Column(name: "familyName", values: .string(["L"])),
            Column(name: "phoneNumbers", values: .string(["555-0100"])),
        ])
        await #expect(throws: ComputeError.self) { try await run("contacts.tuples", input) }
    }

    @Test func regionContainsThePointButDoesNotRevealIt() async throws {
        let near = try Frame(columns: [
            Column(name: "latitude", values: .double([41.8781])),
            Column(name: "longitude", values: .double([-87.6298])),
        ])
        let nearby = try Frame(columns: [
            Column(name: "latitude", values: .double([41.8782])),
            Column(name: "longitude", values: .double([-87.6297])),
        ])
        let region = try await run("location.region", near)
        let other = try await run("location.region", nearby)
        #expect(region == other, "two points in the same cell give the same region")
        let south = try #require(try region.column("south").double(at: 0))
        let north = try #require(try region.column("north").double(at: 0))
        let west = try #require(try region.column("west").double(at: 0))
        let east = try #require(try region.column("east").double(at: 0))
        #expect(south <= 41.8781 && 41.8781 < north)
        #expect(west <= -87.6298 && -87.6298 < east)
        #expect(abs((north - south) * 111_320 - 2000) < 1)
        #expect(try region.column("radius").double(at: 0) == 1000)
    }

    @Test func regionRadiusIsAParameter() async throws {
        let point = try Frame(columns: [
            Column(name: "latitude", values: .double([-33.8688])),
            Column(name: "longitude", values: .double([151.2093])),
        ])
        let region = try await run("location.region", point, parameters: ["radius": "5000"])
        let south = try #require(try region.column("south").double(at: 0))
        let north = try #require(try region.column("north").double(at: 0))
        #expect(abs((north - south) * 111_320 - 10_000) < 1)
        await #expect(throws: ComputeError.invalidParameter(name: "radius", reason: "'far' is not a number")) {
            try await run("location.region", point, parameters: ["radius": "far"])
        }
        await #expect(throws: ComputeError.invalidParameter(name: "radius", reason: "5 is outside 100…100000")) {
            try await run("location.region", point, parameters: ["radius": "5"])
        }
        await #expect(throws: ComputeError.invalidParameter(name: "radios", reason: "unknown parameter; this function takes radius")) {
            try await run("location.region", point, parameters: ["radios": "500"])
        }
        await #expect(throws: ComputeError.invalidParameter(name: "x", reason: "this function takes no parameters")) {
            try await run("identity", point, parameters: ["x": "1"])
        }
    }

    @Test func regionOfNoLocationIsEmpty() async throws {
        let empty = try Frame(columns: [
            Column(name: "latitude", values: .double([])),
            Column(name: "longitude", values: .double([])),
        ])
        let region = try await run("location.region", empty)
        #expect(region.rowCount == 0)
        #expect(region.columnNames.contains("centerLatitude"))
    }

    @Test func photosSummaryCountsByMonthAndType() async throws {
        let input = try Frame(columns: [
            Column(name: "mediaType", values: .string(["image", "image", "video", "image", "audio"])),
            Column(name: "creationDate", values: .string([
                "2025-01-05T10:00:00.000Z", "2025-01-20T10:00:00.000Z", "2025-01-21T10:00:00.000Z",
                "2025-02-01T10:00:00.000Z", "",
            ]), nulls: [false, false, false, false, true]),
        ])
        let output = try await run("photos.summary", input)
        let months = try output.column("month")
        let types = try output.column("mediaType")
        let counts = try output.column("count")
        let rows = (0..<output.rowCount).map { "\(months.string(at: $0) ?? "")/\(types.string(at: $0) ?? "")=\(counts.int64(at: $0) ?? 0)" }
        #expect(rows == ["2025-01/image=2", "2025-01/video=1", "2025-02/image=1", "unknown/audio=1"])
    }

    @Test func weatherNeedsTheNetworkTheEscrowGives() async throws {
        let point = try Frame(columns: [
            Column(name: "latitude", values: .double([48.85])),
            Column(name: "longitude", values: .double([2.35])),
        ])
        await #expect(throws: ComputeError.networkUnavailable) {
            try await run("weather.current", point, parameters: ["service": "http://127.0.0.1:1"])
        }
        await #expect(throws: ComputeError.invalidParameter(name: "service", reason: "give an http:// or https:// URL")) {
            try await run("weather.current", point, parameters: ["service": "file:///etc/passwd"])
        }
    }

    @Test func identityReturnsItsInput() async throws {
        let input = try Frame(columns: [Column(name: "asset", values: .bytes([[1, 2, 3]]))])
        #expect(try await run("identity", input) == input)
    }
}
