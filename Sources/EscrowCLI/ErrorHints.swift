import EscrowHost
import EscrowStore

/// The advice the CLI adds to an error: the command that does what the error calls for.
///
/// The host and the store describe what happened in plain words, because apps read their errors
/// too (through the daemon); naming `escrow` commands and their options is the CLI's business,
/// so it happens here, once, when `reportingErrors` renders an error.
enum ErrorHints {
    /// The error as the individual reads it: its description, then the hint when there is one.
    static func text(of error: any Error) -> String {
        "\(error)\(hint(for: error) ?? "")"
    }

    /// What to append to the error's description (starting with its own separator), or nil.
    static func hint(for error: any Error) -> String? {
        switch error {
        case let decision as DecisionError:
            hint(for: decision)
        case let flow as FlowError:
            hint(for: flow)
        case let server as ServerError:
            hint(for: server)
        case WitnessingError.notAWitness:
            "; `escrow audit witness list` lists them"
        case AccessError.invalidSQL(let message, _) where message.hasPrefix("no such column"):
            "; so does `escrow schema`"
        case let store as StoreError:
            if case .notAnEscrowHome(let path) = store.kind { "; create it with `escrow --home \(path) init`" } else { nil }
        default:
            nil
        }
    }

    private static func hint(for error: DecisionError) -> String? {
        guard case .awaitingApproval(let flow) = error else { return nil }
        return "; review it with `escrow flows show \(flow)`, then run `escrow approve \(flow)` (or `escrow deny \(flow)`)"
    }

    private static func hint(for error: FlowError) -> String? {
        switch error {
        case .unknownFlow: "; list them with `escrow flows`"
        case .notApproved(let flow, .pending): " (to refuse it, use `escrow deny \(flow)`)"
        case .approvalInThePast: "; give --until a later date"
        case .notApproved, .ambiguousFlow: nil
        }
    }

    private static func hint(for error: ServerError) -> String? {
        switch error {
        case .unknownServer(let id): "; register it with `escrow servers add \(id) --address HOST:PORT --ca FILE`"
        case .alreadyRegistered(let id): "; remove it first with `escrow servers remove \(id)`"
        case .noAddress: "; pass --address HOST:PORT (repeat it for replicas)"
        case .serverNameNeeded: "; give it with --server-name"
        case .missingClientCertificate: "; pass --client-cert FILE --client-key FILE to `escrow servers add`"
        case .invalidAddress, .invalidServerID, .unreadableFile: nil
        }
    }
}
