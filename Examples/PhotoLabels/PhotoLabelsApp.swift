import Escrow
import EscrowCore
import EscrowFunctions
import Foundation

/// `escrow-photo-labels [--limit N] [--server ID] [--socket PATH]`: a gallery that labels your
/// latest pictures (the paper's image dataflow, RQ3). The escrow decodes the pictures — on this
/// device, or on its compute server with `--server` — and the app gets labels, colors and
/// similarity hashes, which it uses to show look-alike pictures. No picture reaches the app.
///
/// The number of pictures is part of the query, so asking for more than the individual approved
/// is a new dataflow that needs a new approval.
@main
enum PhotoLabelsApp {
    static let usageText = "usage: escrow-photo-labels [--limit N] [--server ID] [--socket PATH]\n"

    static func main() async {
        var limit = 50
        var server: String?
        var socket: String?
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--limit":
                guard let value = arguments.next().flatMap(Int.init), (1...100_000).contains(value) else { usage() }
                limit = value
            case "--server": server = arguments.next()
            case "--socket": socket = arguments.next()
            default: usage()
            }
        }
        do throws(EscrowError) {
            let escrow = try await Escrow.connect(app: "org.example.gallery", socket: socket)
            let labels = try await escrow.run(
                access: "SELECT id, asset FROM Photos WHERE mediaType = 'image' ORDER BY creationDate DESC, id DESC LIMIT \(limit)",
                compute: PhotosLabels.self, on: server.map(Destination.server) ?? .device,
                purpose: "Label your latest \(limit) pictures and find look-alikes")
            await escrow.close()
            show(labels.pictures, where: server.map { "on the escrow's compute server \($0)" } ?? "on this device")
        } catch {
            if let command = error.approvalCommand {
                print("Example Gallery needs your approval to label your latest \(limit) pictures (the pictures stay in your escrow).")
                print("Run: \(command)")
                exit(2)
            }
            switch error {
            case .denied, .revoked:
                print("You declined labelling for Example Gallery (\(error)); it works without labels.")
                exit(3)
            default:
                FileHandle.standardError.write(Data("escrow-photo-labels: \(error)\n".utf8))
                exit(1)
            }
        }
    }

    static func show(_ pictures: [PhotosLabels.Picture], where place: String) {
        print("Labelled \(pictures.count) picture\(pictures.count == 1 ? "" : "s") \(place):")
        for picture in pictures {
            let name = picture.id.map { "#\($0)" } ?? "?"
            if let problem = picture.problem {
                print("  \(name): \(problem)")
            } else {
                let size = "\(picture.width ?? 0)×\(picture.height ?? 0)"
                print("  \(name) \(size) \(picture.dominantColor ?? "?"): \(picture.labels.joined(separator: ", "))")
            }
        }
        var counts: [String: Int] = [:]
        for label in pictures.flatMap(\.labels) { counts[label, default: 0] += 1 }
        let common = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(5)
        if !common.isEmpty {
            print("Most common: " + common.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        let alike = lookAlikes(pictures)
        print(alike.isEmpty ? "No look-alikes." : "Look-alikes: " + alike.map { "#\($0.0) and #\($0.1)" }.joined(separator: ", "))
    }

    /// Pairs of pictures whose perceptual hashes differ in at most 5 of 64 bits.
    static func lookAlikes(_ pictures: [PhotosLabels.Picture]) -> [(Int64, Int64)] {
        let hashed = pictures.compactMap { picture in
            picture.id.flatMap { id in picture.perceptualHash.flatMap { UInt64($0, radix: 16) }.map { (id, $0) } }
        }
        var pairs: [(Int64, Int64)] = []
        for (index, first) in hashed.enumerated() {
            for second in hashed[(index + 1)...] where (first.1 ^ second.1).nonzeroBitCount <= 5 {
                pairs.append((min(first.0, second.0), max(first.0, second.0)))
            }
        }
        return pairs.sorted { $0 < $1 }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data(usageText.utf8))
        exit(64)
    }
}
