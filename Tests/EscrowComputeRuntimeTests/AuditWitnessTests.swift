import Crypto
import EscrowTestSupport
import Foundation
import SwiftProtobuf
import Testing

@testable import EscrowComputeRuntime
@testable import EscrowWire

/// A real `escrow-compute --witness-store` on 127.0.0.1 as an audit witness: what it countersigns,
/// what it refuses, and what it keeps across a restart.
@Suite(.devCertificates)
struct AuditWitnessTests {
    private let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.forCurrentSuite()
    }

    /// The test host's audit key (fixed bytes).
    static func hostKey() throws -> Curve25519.Signing.PrivateKey {
        try Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32))
    }

    /// A head for entry `seq` whose hash is `digit` 64 times, signed by `key` (the test host's
    /// when nil).
    static func head(_ seq: Int, _ digit: Character, key: Curve25519.Signing.PrivateKey? = nil) throws -> SignedAuditHead {
        try SignedAuditHead.sign(seq: seq, entryHash: String(repeating: digit, count: 64), time: "2026-11-23T19:00:00.000Z",
                                 with: key ?? hostKey())
    }

    /// Runs `body` with a witness keeping its store in `store` (a new temporary folder when nil,
    /// removed afterwards); the server is killed afterwards.
    func withWitness<T>(store: URL? = nil, _ body: (ComputeServerProcess) async throws -> T) async throws -> T {
        let folder = store ?? FileManager.default.temporaryDirectory.appendingPathComponent("escrow-witness-\(UUID().uuidString)")
        defer { if store == nil { try? FileManager.default.removeItem(at: folder) } }
        let server = try await ComputeServerProcess.start(certificates: certificates, extraArguments: ["--witness-store", folder.path])
        defer { server.kill() }
        return try await body(server)
    }

    @Test func countersignsHeadsThatExtendTheHeldOneAndRefusesRollbackAndFork() async throws {
        try await withWitness { server in
            try await RemoteFixtures.withConnection(to: server) { connection in
                let none = try await connection.witnessedHeads()
                #expect(none.isEmpty)
                let first = try await connection.witness(try Self.head(3, "a"), previousSeq: 0, previousHash: "")
                #expect(first.head.seq == 3)
                #expect(first.head.entryHash == String(repeating: "a", count: 64))
                #expect(first.head.hostKey == (try Self.hostKey()).publicKey.rawRepresentation)
                #expect(first.hostCertificate.count == 64)
                #expect(first.witnessKey.count == 32)

                let rollback = await Self.refusal { try await connection.witness(try Self.head(2, "b"), previousSeq: 3, previousHash: String(repeating: "a", count: 64)) }
                #expect(rollback?.code == .witnessRefused)
                #expect(rollback?.message.contains("rollback") == true, "\(String(describing: rollback))")
                let fork = await Self.refusal { try await connection.witness(try Self.head(3, "c"), previousSeq: 3, previousHash: String(repeating: "a", count: 64)) }
                #expect(fork?.code == .witnessRefused)
                #expect(fork?.message.contains("fork") == true, "\(String(describing: fork))")
                let rewritten = await Self.refusal { try await connection.witness(try Self.head(5, "d"), previousSeq: 3, previousHash: String(repeating: "e", count: 64)) }
                #expect(rewritten?.code == .witnessRefused)
                #expect(rewritten?.message.contains("previous head") == true, "\(String(describing: rewritten))")
                let otherKey = await Self.refusal {
                    try await connection.witness(try Self.head(5, "d", key: Curve25519.Signing.PrivateKey()), previousSeq: 3,
                                                 previousHash: String(repeating: "a", count: 64))
                }
                #expect(otherKey?.code == .witnessRefused)
                #expect(otherKey?.message.contains("another host key") == true, "\(String(describing: otherKey))")

                let same = try await connection.witness(try Self.head(3, "a"), previousSeq: 3, previousHash: String(repeating: "a", count: 64))
                #expect(same == first, "the same head again: the countersignature held")
                let second = try await connection.witness(try Self.head(5, "d"), previousSeq: 3, previousHash: String(repeating: "a", count: 64))
                #expect(second.witnessKey == first.witnessKey)
                let held = try await connection.witnessedHeads()
                #expect(held.map(\.head.seq) == [3, 5])
            }
        }
    }

    @Test func heldHeadsSurviveARestartOfTheServer() async throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-witness-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let witnessed = try await withWitness(store: store) { server in
            try await RemoteFixtures.withConnection(to: server) { connection in
                try await connection.witness(try Self.head(7, "f"), previousSeq: 0, previousHash: "")
            }
        }
        let mode = try FileManager.default.attributesOfItem(atPath: store.appendingPathComponent("witness-key").path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        try await withWitness(store: store) { server in
            try await RemoteFixtures.withConnection(to: server) { connection in
                let held = try await connection.witnessedHeads()
                #expect(held == [witnessed])
                let rollback = await Self.refusal { try await connection.witness(try Self.head(6, "f"), previousSeq: 0, previousHash: "") }
                #expect(rollback?.code == .witnessRefused, "the restarted witness still refuses a rollback")
            }
        }
    }

    @Test func aServerWithoutAStoreIsNotAWitness() async throws {
        let server = try await ComputeServerProcess.start(certificates: certificates)
        defer { server.kill() }
        try await RemoteFixtures.withConnection(to: server) { connection in
            let refusal = await Self.refusal { try await connection.witnessedHeads() }
            #expect(refusal?.code == .notAWitness)
            #expect(refusal?.message.contains("--witness-store") == true)
        }
    }

    @Test func aStoreThatCannotBeMadeOrIsInUseIsRefusedAtStart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-witness-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["--listen", "127.0.0.1:0", "--cert", certificates.path("server.pem"), "--key", certificates.path("server-key.pem"),
                         "--client-ca", certificates.path("ca.pem"), "--witness-store"]
        try Data("a file".utf8).write(to: folder)
        let underAFile = try ComputeServerProcess.refusedStart(arguments: arguments + [folder.appendingPathComponent("store").path])
        #expect(underAFile.status == 1)
        #expect(underAFile.standardError.contains("cannot create the folder"), "\(underAFile.standardError)")
        #expect(underAFile.standardError.contains("whose parent folder exists and is writable"), "\(underAFile.standardError)")
        try FileManager.default.removeItem(at: folder)

        try await withWitness(store: folder) { _ in
            let second = try ComputeServerProcess.refusedStart(arguments: arguments + [folder.path])
            #expect(second.status == 1)
            #expect(second.standardError.contains("another process uses the witness store"), "\(second.standardError)")
        }
    }

    /// Ways a head sent to a witness can be malformed.
    static let malformedHeads: [(String, @Sendable (inout Escrow_V1_WitnessRequest) -> Void)] = [
        ("no head", { $0.clearHead() }),
        ("seq 0", { $0.head.seq = 0 }),
        ("seq over 63 bits", { $0.head.seq = UInt64.max }),
        ("a short hash", { $0.head.entryHash = String(repeating: "a", count: 63) }),
        ("an upper-case hash", { $0.head.entryHash = String(repeating: "A", count: 64) }),
        ("a hash with a path in it", { $0.head.entryHash = "../../" + String(repeating: "a", count: 58) }),
        ("an empty time", { $0.head.time = "" }),
        ("a 65-byte time", { $0.head.time = String(repeating: "9", count: 65) }),
        ("a 31-byte key", { $0.head.hostKey = $0.head.hostKey.prefix(31) }),
        ("a 63-byte signature", { $0.head.hostSignature = $0.head.hostSignature.prefix(63) }),
        ("a signature of other bytes", { $0.head.seq += 1 }),
        ("a flipped signature bit", { $0.head.hostSignature[$0.head.hostSignature.startIndex] ^= 1 }),
    ]

    @Test(arguments: malformedHeads.indices)
    func refusesAMalformedHeadAndKeepsServing(_ index: Int) async throws {
        let (name, damage) = Self.malformedHeads[index]
        try await withWitness { server in
            try await RemoteFixtures.withConnection(to: server) { connection in
                var envelope = Escrow_V1_Envelope()
                var request = Escrow_V1_WitnessRequest.with { $0.head = (try? Self.head(1, "a"))?.message ?? Escrow_V1_AuditHead() }
                damage(&request)
                envelope.witnessRequest = request
                let refusal = await Self.refusal { _ = try await connection.call(envelope, deadline: .seconds(10)) }
                #expect(refusal?.code == .badRequest, "\(name): \(String(describing: refusal))")
                let held = try await connection.witnessedHeads()
                #expect(held.isEmpty, "\(name): nothing was kept")
            }
        }
    }

    @Test func keepsAtMost32HeadsPerHostSpreadOverTheLog() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-witness-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try AuditWitnessStore(folder: folder.path, clock: try SettableClock(at: "2026-11-23T19:00:00Z"))
        let host = String(repeating: "1", count: 64)
        var previous = (seq: 0, hash: "")
        for seq in 1...120 {
            let digit: Character = seq.isMultiple(of: 2) ? "a" : "b"
            let head = try Self.head(seq, digit)
            _ = try store.witness(.with {
                $0.head = head.message
                $0.previousSeq = UInt64(previous.seq)
                $0.previousHash = previous.hash
            }, host: host)
            previous = (seq, head.entryHash)
        }
        let kept = try store.heads(for: host).map(\.head.seq)
        #expect(kept.count <= AuditWitnessStore.maximumHeadsPerHost)
        #expect(kept.first == 1)
        #expect(kept.last == 120)
        #expect(kept == kept.sorted())
        #expect(kept.filter { $0 <= 60 }.count >= 10, "old heads stay spread out: \(kept)")
        #expect(throws: WitnessError.self, "a second server on the same store") { try AuditWitnessStore(folder: folder.path) }
    }

    @Test func bothSignaturesCoverTheEncodingDocumentedInProtocolMD() throws {
        func text(_ value: String) -> [UInt8] { [0x01] + withUnsafeBytes(of: UInt64(value.utf8.count).bigEndian, Array.init) + Array(value.utf8) }
        func integer(_ value: Int) -> [UInt8] { [0x02] + withUnsafeBytes(of: Int64(value).bigEndian, Array.init) }
        func hex(_ bytes: Data) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

        let head = try Self.head(42, "c")
        let headBytes = text("escrow.audit-head.v1") + integer(42) + text(head.entryHash) + text(head.time) + text(hex(head.hostKey))
        #expect(try Curve25519.Signing.PublicKey(rawRepresentation: head.hostKey).isValidSignature(head.hostSignature, for: headBytes))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("escrow-witness-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let host = String(repeating: "9", count: 64)
        let store = try AuditWitnessStore(folder: folder.path, clock: try SettableClock(at: "2026-11-23T20:00:00Z"))
        let witnessed = try store.witness(.with { $0.head = head.message }, host: host)
        #expect(witnessed.witnessedAt == "2026-11-23T20:00:00.000Z", "countersigned at the store's clock's time")
        let witnessBytes = text("escrow.audit-witness.v1") + text(host) + integer(42) + text(head.entryHash) + text(head.time)
            + text(hex(head.hostKey)) + text(hex(head.hostSignature)) + text("2026-11-23T20:00:00.000Z") + text(hex(witnessed.witnessKey))
        #expect(try Curve25519.Signing.PublicKey(rawRepresentation: witnessed.witnessKey)
            .isValidSignature(witnessed.witnessSignature, for: witnessBytes))
        #expect(try WitnessedAuditHead(serialized: try witnessed.serialized()) == witnessed)
    }

    /// The `RPCError.remote` that `body` throws, or nil when it throws none or another error.
    static func refusal<T>(_ body: () async throws -> T) async -> (code: Escrow_V1_Error.Code, message: String)? {
        do {
            _ = try await body()
            return nil
        } catch RPCError.remote(let code, let message) {
            return (code, message)
        } catch {
            return nil
        }
    }
}
