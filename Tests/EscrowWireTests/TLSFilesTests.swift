import EscrowWire
import EscrowTestSupport
import Foundation
import Testing

/// A wrong TLS file is named, with what is wrong with it, on both sides: the host's client and
/// `escrow-compute` at startup.
@Suite(.devCertificates)
struct TLSFilesTests {
    private let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.forCurrentSuite()
    }

    enum Problem: String, CaseIterable, Sendable {
        case missingCertificate, certificateIsAFolder, emptyCA, garbageCA, keyIsACertificate
    }

    @Test func aKeyOfAnotherCertificateIsNamed() throws {
        var files = certificates.server
        files.privateKey = certificates.path("client-key.pem")
        let expected = RPCError.connectionFailed("\(files.privateKey) (the private key) does not belong to \(files.certificate) (the certificate)")
        #expect(throws: expected) { try files.serverContext() }
        #expect(throws: expected) { try files.clientContext() }
    }

    /// The server's files with one of them spoiled, and the message that must name it.
    private func spoiled(_ problem: Problem, in folder: URL) throws -> (TLSFiles, expected: String) {
        var files = certificates.server
        switch problem {
        case .missingCertificate:
            files.certificate = folder.appendingPathComponent("missing.pem").path
            return (files, "\(files.certificate) (the certificate) does not exist")
        case .certificateIsAFolder:
            files.certificate = folder.path
            return (files, "\(files.certificate) (the certificate) is a folder, not a PEM file")
        case .emptyCA:
            files.certificateAuthority = folder.appendingPathComponent("empty.pem").path
            try Data().write(to: URL(fileURLWithPath: files.certificateAuthority))
            return (files, "\(files.certificateAuthority) (the CA certificate) holds no PEM certificate")
        case .garbageCA:
            files.certificateAuthority = folder.appendingPathComponent("garbage.pem").path
            try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: files.certificateAuthority))
            return (files, "\(files.certificateAuthority) (the CA certificate) holds no PEM certificate")
        case .keyIsACertificate:
            files.privateKey = certificates.path("server.pem")
            return (files, "\(files.privateKey) (the private key) is not an unencrypted PEM private key")
        }
    }

    private func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    @Test func goodFilesMakeBothContexts() throws {
        _ = try certificates.server.serverContext()
        _ = try certificates.client.clientContext()
    }

    @Test(arguments: Problem.allCases)
    func aSpoiledFileIsNamed(_ problem: Problem) async throws {
        try await withFolder { folder in
            let (files, expected) = try spoiled(problem, in: folder)
            #expect(throws: RPCError.connectionFailed(expected)) { try files.serverContext() }
            #expect(throws: RPCError.connectionFailed(expected)) { try files.clientContext() }
        }
    }

    @Test(arguments: [Problem.missingCertificate, .garbageCA])
    func escrowComputeSaysWhichFileAndExits1(_ problem: Problem) async throws {
        try await withFolder { folder in
            let (files, expected) = try spoiled(problem, in: folder)
            let refused = try ComputeServerProcess.refusedStart(arguments: [
                "--listen", "127.0.0.1:0", "--cert", files.certificate, "--key", files.privateKey,
                "--client-ca", files.certificateAuthority,
            ])
            #expect(refused.status == 1)
            #expect(refused.standardError == "escrow-compute: \(expected)\n")
        }
    }
}
