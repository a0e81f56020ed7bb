import ArgumentParser
import EscrowCore
import EscrowStore
import Foundation

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import your contacts, locations or photos into the escrow.",
        discussion: """
            contacts: a vCard file (2.1, 3.0 or 4.0), as exported by Contacts apps.
            locations: a GPX, GeoJSON or CSV file (timestamp, latitude, longitude, …).
            photos: a folder of JPEG/PNG/HEIC images, MP4/MOV videos and M4A/MP3 recordings;
                    files are copied into the escrow.
            An import is one transaction: a malformed file changes nothing. Importing the same
            file again adds nothing.

            Examples:
              escrow import contacts ~/Downloads/contacts.vcf
              escrow import locations ~/tracks/walk.gpx
              escrow import photos ~/Pictures
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "What to import: contacts, locations or photos.")
    var kind: Kind

    @Argument(help: ArgumentHelp("The file (contacts, locations) or folder (photos).", valueName: "PATH"))
    var path: String

    @Option(help: "The contact container (account) to file contacts under.")
    var container = "local"

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case contacts, locations, photos
    }

    func run() async throws {
        try await reportingErrors {
            let home = try global.escrowHome()
            try home.requireInitialized()
            let importer = Importer(home: home, logger: global.logger())
            let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            let progress = Self.progressLine()
            let summary: ImportSummary
            switch kind {
            case .contacts: summary = try importer.importContacts(from: url, container: container, progress: progress)
            case .locations: summary = try importer.importLocations(from: url, progress: progress)
            case .photos: summary = try importer.importPhotos(from: url, progress: progress)
            }
            var line = "imported \(summary.records) \(kind.rawValue) from \(url.path): \(summary.added) added, \(summary.updated) updated, \(summary.unchanged) already present"
            if summary.skippedFiles > 0 { line += ", \(summary.skippedFiles) files skipped (not photos, videos or audio)" }
            print(DisplayText.escaped(line))
        }
    }

    /// A progress line on standard error, when it is a terminal.
    static func progressLine() -> (@Sendable (ImportProgress) -> Void)? {
        guard Terminal.standardError.isTerminal else { return nil }
        return { progress in
            Terminal.standardError.write("\rimporting \(progress.kind.rawValue): \(progress.done)/\(progress.total)")
            if progress.done == progress.total { Terminal.standardError.write("\n") }
        }
    }
}
