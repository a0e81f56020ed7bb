import EscrowCore
import EscrowFunctions
@testable import EscrowHost
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import Testing

/// The paper's image dataflow (RQ3): photos.labels over 10, 100 and 1000 real JPEGs, on the
/// device and on a real `escrow-compute` over mutual TLS, with the same result.
@Suite(.serialized) struct ImageComputeTests {
    let logger = Logger(label: "test")
    static let access = "SELECT id, asset FROM Photos WHERE mediaType = 'image' ORDER BY originalFilename"

    @Test(arguments: [10, 100, 1000])
    func picturesAreLabelledAlikeOnTheDeviceAndOnTheServer(count: Int) async throws {
        try await ComputeServerProcess.with { server, certificates in
            try await TemporaryHome.with { temporary in
                let folder = temporary.url.appendingPathComponent("photos", isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let scenes = MediaFixtures.Scene.allCases
                var pictureBytes = 0
                for index in 0..<count {
                    let picture = MediaFixtures.scene(scenes[index % scenes.count], width: 160, height: 120, seed: UInt64(index))
                    pictureBytes += picture.count
                    try Data(picture).write(to: folder.appendingPathComponent(String(format: "IMG_%04d.jpg", index)))
                }
                let report = try Importer(home: temporary.home, logger: logger).importPhotos(from: folder)
                #expect(report.added == count)
                let host = try EscrowHost(home: temporary.home, logger: logger)
                try host.register(server, certificates)

                let device = try await host.runApproving(app: "org.example.gallery", purpose: "labels", access: Self.access,
                                                         compute: PhotosLabels.id)
                let remote = try await host.runApproving(app: "org.example.gallery", purpose: "labels", access: Self.access,
                                                         compute: PhotosLabels.id, on: .server("compute-1"))
                #expect(remote.output == device.output)
                let pictures = try PhotosLabels.Output(frame: device.output).pictures
                #expect(pictures.count == count)
                #expect(pictures.allSatisfy { $0.problem == nil && $0.width == 160 && $0.height == 120 })
                // Rows come in file name order, so row i shows scene i mod 4.
                for (index, picture) in pictures.enumerated() {
                    let expected = ["sky", "warm light", "night", "document"][index % scenes.count]
                    #expect(picture.labels.contains(expected), "picture \(index): \(picture.labels)")
                }
                // The pictures went to the server; only the labels came back.
                let facts = remote.auditEntry.facts
                #expect(facts.destination == "server:compute-1")
                #expect(facts.bytesSent > pictureBytes)
                #expect(facts.bytesReceived < facts.bytesSent)
                #expect(try host.audit.verify() == .intact(entries: 4))
            }
        }
    }
}
