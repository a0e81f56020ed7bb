import EscrowCore
import Foundation
import Logging

/// What kind of data an import brings in.
public enum ImportKind: String, Sendable, CaseIterable {
    case contacts, locations, photos
}

/// Progress of a long import, reported every few hundred records.
public struct ImportProgress: Sendable, Equatable {
    public let kind: ImportKind
    public let done: Int
    public let total: Int
}

/// Imports files people really have into the data tables.
///
/// Every import is one transaction: a malformed file (`ImportError`, rendered `file:line: reason`)
/// or a storage failure leaves the tables exactly as they were, and photo files copied for a
/// failed import are removed again. Importing the same source twice changes nothing the second
/// time. Each successful import is recorded in the escrow's own database.
public struct Importer: Sendable {
    public let home: EscrowHome
    private let logger: Logger

    /// Inputs at least this large report progress.
    public static let progressThreshold = 500

    public init(home: EscrowHome, logger: Logger) {
        self.home = home
        self.logger = logger
    }

    /// Imports a vCard file (2.1, 3.0 or 4.0) into `Contact`.
    ///
    /// - Parameter container: the CNContainer id the cards are filed under (default `local`).
    public func importContacts(from url: URL, container: String = "local",
                               progress: (@Sendable (ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        let started = Date()
        let data = try read(url)
        let records = try VCardParser.parse(data, file: url.path)
        progress?(ImportProgress(kind: .contacts, done: 0, total: records.count))
        let summary = try DataWriter(home: home).insertContacts(records, containerID: container)
        progress?(ImportProgress(kind: .contacts, done: records.count, total: records.count))
        try record(.contacts, source: url, started: started, summary: summary)
        return summary
    }

    /// Imports a GPX, GeoJSON or CSV file into `Location`. The format is chosen by the file
    /// extension (`.gpx`, `.geojson`/`.json`, `.csv`), else by the first character of the content.
    public func importLocations(from url: URL,
                                progress: (@Sendable (ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        let started = Date()
        let data = try read(url)
        let records: [LocationRecord]
        switch LocationFormat(url: url, data: data) {
        case .gpx: records = try GPXParser.parse(data, file: url.path)
        case .geoJSON: records = try GeoJSONParser.parse(data, file: url.path)
        case .csv: records = try LocationCSVParser.parse(data, file: url.path)
        }
        progress?(ImportProgress(kind: .locations, done: 0, total: records.count))
        let summary = try DataWriter(home: home).insertLocations(records)
        progress?(ImportProgress(kind: .locations, done: records.count, total: records.count))
        try record(.locations, source: url, started: started, summary: summary)
        return summary
    }

    /// Imports a folder of photos, videos and audio recordings (recursively) into `Photos`,
    /// copying each file into the escrow's content-addressed storage. Files that are not
    /// supported media are skipped; a file whose content is already stored is skipped as a
    /// duplicate.
    public func importPhotos(from folder: URL,
                             progress: (@Sendable (ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        let started = Date()
        let files = try mediaCandidates(in: folder)
        let writer = try DataWriter(home: home)
        let assets = AssetStore(root: home.assetsURL)
        var known = try writer.storedAssetIDs()
        var summary = ImportSummary()
        var rows: [PhotoRow] = []
        var written: [String] = []
        do {
            for (index, file) in files.enumerated() {
                if files.count >= Self.progressThreshold, index % 250 == 0 {
                    progress?(ImportProgress(kind: .photos, done: index, total: files.count))
                }
                guard let info = try MediaProbe.probe(fileAt: file) else {
                    summary.skippedFiles += 1
                    continue
                }
                let (assetID, byteCount) = try AssetStore.assetID(ofFileAt: file)
                guard known.insert(assetID).inserted else {
                    summary.records += 1
                    summary.unchanged += 1
                    continue
                }
                if try assets.store(fileAt: file, as: assetID) { written.append(assetID) }
                let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
                let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970
                rows.append(PhotoRow(assetID: assetID, info: info, modificationDate: modified,
                                     byteSize: byteCount, originalFilename: relativePath(of: file, in: folder)))
            }
            let inserted = try writer.insertPhotos(rows)
            summary.records += inserted.records
            summary.added += inserted.added
            summary.unchanged += inserted.unchanged
        } catch {
            for assetID in written { assets.remove(assetID) }
            throw error
        }
        if files.count >= Self.progressThreshold {
            progress?(ImportProgress(kind: .photos, done: files.count, total: files.count))
        }
        try record(.photos, source: folder, started: started, summary: summary)
        return summary
    }

    /// Regular, non-hidden files below `folder`, sorted by path.
    private func mediaCandidates(in folder: URL) throws -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            throw ImportError(file: folder.path, line: nil, reason: "no such folder")
        }
        guard isDirectory.boolValue else {
            throw ImportError(file: folder.path, line: nil, reason: "not a folder; pass the folder that holds the photos")
        }
        // A folder below that cannot be listed stops the walk and fails the import, as an
        // unreadable file does: skipping it would import part of the photos without a word.
        var unreadable: URL?
        guard let enumerator = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles],
            errorHandler: { url, _ in
                unreadable = url
                return false
            }
        ) else {
            throw ImportError(file: folder.path, line: nil, reason: "cannot list the folder")
        }
        var files: [URL] = []
        for case let url as URL in enumerator {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                files.append(url)
            }
        }
        if let unreadable {
            throw ImportError(file: unreadable.path, line: nil,
                              reason: "cannot be read (check its permissions); nothing was imported")
        }
        return files.sorted { $0.path < $1.path }
    }

    private func relativePath(of file: URL, in folder: URL) -> String {
        let base = folder.standardizedFileURL.path
        let path = file.standardizedFileURL.path
        guard path.hasPrefix(base + "/") else { return file.lastPathComponent }
        return String(path.dropFirst(base.count + 1))
    }

    private func read(_ url: URL) throws(ImportError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ImportError(file: url.path, line: nil, reason: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw ImportError(file: url.path, line: nil, reason: "is a folder; pass a file")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ImportError(file: url.path, line: nil, reason: "cannot be read (check its permissions)")
        }
        return data
    }

    /// Appends the import to the escrow's own log of imports.
    private func record(_ kind: ImportKind, source: URL, started: Date, summary: ImportSummary) throws(StoreError) {
        let state = try Database(path: home.stateDatabasePath, mode: .readWrite)
        try state.prepare("""
            INSERT INTO Import (kind, source, startedAt, durationMs, records, added, updated, unchanged)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).run([
                .text(kind.rawValue), .text(source.standardizedFileURL.path),
                .text(Timestamp.format(secondsSince1970: started.timeIntervalSince1970)),
                .real(Date().timeIntervalSince(started) * 1000),
                .integer(Int64(summary.records)), .integer(Int64(summary.added)),
                .integer(Int64(summary.updated)), .integer(Int64(summary.unchanged)),
            ])
        logger.info("import finished", metadata: [
            "kind": "\(kind.rawValue)", "records": "\(summary.records)", "added": "\(summary.added)",
            "updated": "\(summary.updated)", "unchanged": "\(summary.unchanged)",
        ])
    }
}

/// The location file formats the importer reads.
enum LocationFormat {
    case gpx, geoJSON, csv

    init(url: URL, data: Data) {
        switch url.pathExtension.lowercased() {
        case "gpx": self = .gpx
        case "geojson", "json": self = .geoJSON
        case "csv", "txt": self = .csv
        default:
            let first = data.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF) }
            switch first {
            case UInt8(ascii: "<"): self = .gpx
            case UInt8(ascii: "{"), UInt8(ascii: "["): self = .geoJSON
            default: self = .csv
            }
        }
    }
}
