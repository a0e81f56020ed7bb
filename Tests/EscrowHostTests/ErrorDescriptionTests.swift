import EscrowCore
import EscrowHost
import EscrowStore
import Testing

/// The host's and the store's errors state what happened; naming `escrow` commands and their
/// options is the CLI's business (`ErrorHints`), since apps read these same descriptions through
/// the daemon and the audit log keeps them.
@Suite struct ErrorDescriptionTests {
    static let errors: [any Error & Sendable] = [
        DecisionError.awaitingApproval(flow: "1a2b3c4d"),
        DecisionError.denied(flow: "1a2b3c4d", reason: "no"),
        DecisionError.revoked(flow: "1a2b3c4d"),
        FlowError.unknownFlow("1a2b"),
        FlowError.ambiguousFlow("1a", matches: ["1a2b3c4d", "1a9f0000"]),
        FlowError.notApproved(flow: "1a2b3c4d", status: .pending),
        FlowError.notApproved(flow: "1a2b3c4d", status: .denied),
        FlowError.approvalInThePast("2001-01-01T00:00:00.000Z"),
        ServerError.unknownServer("compute-1"),
        ServerError.alreadyRegistered("compute-1"),
        ServerError.noAddress,
        ServerError.serverNameNeeded("127.0.0.1:7443"),
        ServerError.missingClientCertificate("/home/me/escrow/tls"),
        AccessError.invalidSQL(message: "no such column: secret", offset: 7),
        AccessError.invalidSQL(message: "no such table: Secrets", offset: 14),
        WitnessingError.notAWitness("compute-1"),
        StoreError.notAnEscrowHome("/home/me/escrow"),
        StoreError.unreadableValue(table: "dataflow", record: "1a2b3c4d", column: "reads", database: "escrow.sqlite",
                                   problem: "not a JSON array of strings"),
        RemoteComputeError.functionNotOffered(server: "compute-1", function: "contacts.tuples"),
    ]

    @Test(arguments: 0..<errors.count)
    func namesNoCLICommandOrOption(index: Int) {
        let text = "\(Self.errors[index])"
        #expect(!text.isEmpty)
        #expect(!text.contains("`escrow"), "\(text)")
        #expect(!text.contains("escrow approve") && !text.contains("escrow flows") && !text.contains("escrow servers"), "\(text)")
        #expect(!text.contains(" --"), "\(text)")
    }
}
