import EscrowCore
import EscrowStore
import Foundation

/// A fresh escrow home in a temporary folder, removed by `remove()`.
public struct TemporaryHome: Sendable {
    public let home: EscrowHome

    /// Creates and initialises a new home.
    public init() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("escrow-test-\(UUID().uuidString)", isDirectory: true)
        home = EscrowHome(url: url)
        try home.initialize()
    }

    public var url: URL { home.url }

    /// Deletes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: home.url)
    }

    /// Runs `body` with a new home, removing it afterwards.
    public static func with<T>(_ body: (TemporaryHome) async throws -> T) async throws -> T {
        let home = try TemporaryHome()
        defer { home.remove() }
        return try await body(home)
    }

    /// Fills the data tables with a small, known data set (through the writer, not the importers).
    public func seed() throws {
        let writer = try DataWriter(home: home)
        _ = try writer.insertContacts(SampleRecords.contacts, containerID: "local")
        _ = try writer.insertLocations(SampleRecords.locations)
        let assets = AssetStore(root: home.assetsURL)
        var rows: [PhotoRow] = []
        for (index, sample) in SampleRecords.photos.enumerated() {
            let bytes = Array("photo \(index) \(sample.format)".utf8)
            let assetID = AssetStore.assetID(of: bytes)
            try assets.store(bytes, as: assetID)
            rows.append(PhotoRow(assetID: assetID, info: sample, modificationDate: 1_735_689_600,
                                 byteSize: bytes.count, originalFilename: "IMG_\(index).\(sample.format)"))
        }
        _ = try writer.insertPhotos(rows)
    }
}

/// The records `TemporaryHome.seed()` stores.
public enum SampleRecords {
    public static let contacts: [ContactRecord] = {
        var ada = ContactRecord(line: 1)
        ada.uid = "c-ada"
        ada.givenName = "Ada"
        ada.familyName = "Lovelace"
        ada.phoneNumbers = [LabeledValue(label: "mobile", value: "+1 555 0100"), LabeledValue(label: "home", value: "+1 555 0101")]
        ada.emailAddresses = [LabeledValue(label: "work", value: "ada@example.org")]
        ada.groups = ["Friends"]
        var alan = ContactRecord(line: 10)
        alan.uid = "c-alan"
        alan.givenName = "Alan"
        alan.familyName = "Turing"
        alan.phoneNumbers = [LabeledValue(label: "mobile", value: "+44 20 5550 0102")]
        var grace = ContactRecord(line: 20)
        grace.uid = "c-grace"
        grace.givenName = "Grace"
        grace.familyName = "Hopper"
        grace.birthday = "1906-12-09"
        return [ada, alan, grace]
    }()

    public static let locations: [LocationRecord] = [
        LocationRecord(timestamp: 1_735_689_600, latitude: 41.8781, longitude: -87.6298, source: "csv", line: 2),
        LocationRecord(timestamp: 1_735_693_200, latitude: 41.8827, longitude: -87.6233, source: "csv", line: 3),
        LocationRecord(timestamp: 1_735_696_800, latitude: 41.7886, longitude: -87.5987, source: "csv", line: 4),
    ]

    public static let photos: [MediaInfo] = {
        func make(_ type: MediaType, _ format: String, _ date: String) -> MediaInfo {
            var info = MediaInfo(mediaType: type, format: format)
            info.creationDate = Timestamp.parse(date)
            return info
        }
        return [
            make(.image, "jpeg", "2025-01-05T10:00:00Z"),
            make(.image, "jpeg", "2025-01-20T10:00:00Z"),
            make(.image, "png", "2025-02-01T10:00:00Z"),
            make(.video, "mp4", "2025-02-03T10:00:00Z"),
            make(.audio, "m4a", "2025-03-03T10:00:00Z"),
        ]
    }()
}
