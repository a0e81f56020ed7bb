import EscrowCore
@testable import EscrowHost
import EscrowWire
import SwiftProtobuf
import Testing

/// A compute server's catalog as the host reads it. The real `escrow-compute` only sends entries
/// it can describe, so a peer's unreadable entries are crafted here as the wire would carry them.
@Suite struct RemoteCatalogTests {
    static let approved = FunctionDescriptor(id: "contacts.tuples", version: 1,
                                             codeDigest: String(repeating: "a", count: 64), summary: "")

    static func entry(id: String = approved.id, version: Int64 = 1, codeDigest: String = approved.codeDigest) -> Escrow_V1_FunctionInfo {
        .with {
            $0.id = id
            $0.version = version
            $0.codeDigest = codeDigest
        }
    }

    /// Entries for the approved function that cannot be read, and what the error must say.
    static let unreadableEntries: [(Escrow_V1_FunctionInfo, String)] = [
        (entry(codeDigest: ""), "function 'contacts.tuples' has no code digest"),
        (entry(version: 0), "function 'contacts.tuples' has version 0; versions start at 1"),
        (entry(version: -3), "function 'contacts.tuples' has version -3; versions start at 1"),
    ]

    @Test(arguments: unreadableEntries)
    func anUnreadableEntryForTheFunctionIsSaidSoNotNotOffered(entry: Escrow_V1_FunctionInfo, reason: String) throws {
        let catalog = RemoteCatalog(server: "compute-1", entries: [Self.entry(id: "location.region"), entry])
        #expect(catalog.offered.keys.sorted() == ["location.region"])
        #expect(catalog.unreadable.keys.sorted() == ["contacts.tuples"])
        let error = try #require(throws: RemoteComputeError.self) { try catalog.check(Self.approved) }
        guard case .unreadableCatalogEntry(let server, let function, let problem) = error else {
            Issue.record("expected unreadableCatalogEntry, got \(error)")
            return
        }
        #expect(server == "compute-1" && function == "contacts.tuples")
        #expect(problem.description.contains(reason))
        #expect(error.description.contains("compute server compute-1's catalog entry for contacts.tuples cannot be read"))
        #expect(error.description.contains(reason))
        #expect(error.description.contains("no data was sent"))
        #expect(AppFailure(hostError: error).kind == .serverUnavailable)
    }

    @Test func anEntryWithoutAnIDIsKeptAndOtherFunctionsStillRun() throws {
        let catalog = RemoteCatalog(server: "compute-1", entries: [Self.entry(id: ""), Self.entry()])
        #expect(catalog.unreadable.keys.sorted() == [""])
        #expect(catalog.unreadable[""]?.description == "invalid catalog entry: a function has no id")
        try catalog.check(Self.approved)
        #expect(throws: RemoteComputeError.functionNotOffered(server: "compute-1", function: "location.region")) {
            try catalog.check(FunctionDescriptor(id: "location.region", version: 1, codeDigest: "b", summary: ""))
        }
    }

    @Test func aReadableEntryForTheSameIDWins() throws {
        let catalog = RemoteCatalog(server: "compute-1", entries: [Self.entry(codeDigest: ""), Self.entry()])
        #expect(catalog.unreadable.isEmpty)
        try catalog.check(Self.approved)
    }

    @Test func otherCodeIsRefusedAsBefore() {
        let catalog = RemoteCatalog(server: "compute-1", entries: [Self.entry(codeDigest: String(repeating: "c", count: 64))])
        #expect(throws: RemoteComputeError.digestMismatch(server: "compute-1", function: "contacts.tuples",
                                                          approved: Self.approved.codeDigest,
                                                          offered: String(repeating: "c", count: 64))) {
            try catalog.check(Self.approved)
        }
    }
}
