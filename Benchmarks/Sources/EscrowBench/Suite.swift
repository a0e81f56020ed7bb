import EscrowHost
import EscrowStore
import Foundation
import Logging

/// The inputs every figure shares, made once before any timing: the generated vCard file, its
/// parsed records, and the photo rows.
struct Suite {
    let sampler: Sampler
    let logger: Logger
    /// The generated 5000-card vCard, as bytes.
    let vCard: Data
    /// `vCard` parsed by `VCardParser`.
    let contacts: [ContactRecord]
    let photos: [PhotoRow]

    static let contactCount = 5000
    static let photoCount = 5000

    init(sampler: Sampler, logger: Logger) throws {
        self.sampler = sampler
        self.logger = logger
        vCard = Data(VCardGenerator.cards(Self.contactCount).utf8)
        contacts = try VCardParser.parse(vCard, file: "generated.vcf")
        guard contacts.count == Self.contactCount else {
            throw BenchError("the generated vCard parsed into \(contacts.count) cards, not \(Self.contactCount)")
        }
        photos = RecordGenerator.photoRows(Self.photoCount)
    }

    /// The figure groups, by the key `--only` selects them with.
    static let groups = ["contacts", "photos", "init", "import", "location", "audit", "remote", "codec", "grpc", "flows", "contacts-flow",
                         "photos-flow", "split", "throughput", "memory", "egress", "egress-record",
                         "egress-reports", "egress-http", "location-places", "location-mask", "modules", "tier", "flood"]

    /// Groups a full run leaves out: only `--only` runs them (the flood takes the whole machine).
    static let optInGroups: Set<String> = ["flood"]

    /// Runs the groups named in `only` (all when empty), in the order of `groups`.
    func run(only: Set<String>) async throws -> [FigureResult] {
        var results: [FigureResult] = []
        for group in Self.groups where only.isEmpty ? !Self.optInGroups.contains(group) : only.contains(group) {
            switch group {
            case "contacts": results.append(try await loadContacts())
            case "photos": results.append(try await loadPhotos())
            case "init": results.append(try await initializeHome())
            case "import": results.append(try await importContacts())
            case "remote": results += try await remoteCalls()
            case "codec": results += try await codec()
            case "grpc": results += try await grpcSideBySide()
            case "audit":
                results.append(try await approvalAndAudit(.processCrash))
                results.append(try await approvalAndAudit(.powerLoss))
            case "flows": results += try await flows()
            case "split": results += try await split()
            case "throughput": results += try await throughput()
            case "memory": results += try await daemonMemory()
            case "egress": results += try await egress()
            case "flood": results += try await flood()
            case "location-places": results += try await locationPlaces()
            case "location-mask": results += try await locationMask()
            case "modules": results += try await modules()
            case "tier": results += try await tier()
            // Parts of the egress group, each selectable alone: when "egress" runs, they come with it.
            case "egress-record" where only.isEmpty || only.contains("egress"),
                 "egress-reports" where only.isEmpty || only.contains("egress"),
                 "egress-http" where only.isEmpty || only.contains("egress"): break
            case "egress-record": results += try await egressRecording()
            case "egress-reports": results += try await egressReports()
            case "egress-http": results += try await httpClients()
            // The location, contacts-flow and photos-flow figures are parts of Figure 3, each
            // selectable alone (for profiling): when "flows" runs, they come with it.
            case "location" where only.isEmpty || only.contains("flows"),
                 "contacts-flow" where only.isEmpty || only.contains("flows"),
                 "photos-flow" where only.isEmpty || only.contains("flows"): break
            case "contacts-flow": results += try await contactsFlow()
            case "photos-flow": results += try await photosFlow()
            default: results += try await locationFlow()
            }
        }
        return results
    }
}

/// A benchmark that could not measure what it meant to (a wrong count, a different answer).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
