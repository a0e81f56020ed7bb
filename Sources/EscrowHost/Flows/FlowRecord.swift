import EscrowCore

/// Where a dataflow stands with the individual.
public enum FlowStatus: String, Sendable, Hashable, CaseIterable, Codable {
    /// Seen, not decided yet (or an approval was used up or expired).
    case pending
    /// Allowed to run (once, always, or until a date).
    case approved
    /// Refused by the individual.
    case denied
    /// Was approved; the approval was withdrawn.
    case revoked
}

/// How long an approval lasts.
public enum Approval: Sendable, Hashable {
    /// For exactly one run.
    case once
    /// Until revoked.
    case always
    /// Until the given time (seconds since 1970, UTC).
    case until(Double)

    var kind: String {
        switch self {
        case .once: "once"
        case .always: "always"
        case .until: "until"
        }
    }

    /// Plain words: "once", "always", "until 2026-12-31T00:00:00.000Z".
    public var description: String {
        switch self {
        case .once: "once"
        case .always: "always"
        case .until(let seconds): "until \(Timestamp.format(secondsSince1970: seconds))"
        }
    }
}

/// A dataflow as the escrow keeps it: what it is, and the individual's current decision.
public struct FlowRecord: Sendable, Hashable {
    /// Short id shown to people.
    public let id: String
    public let key: String
    public let app: String
    public let purpose: String
    public let accessSQL: String
    public let normalizedSQL: String
    public let function: FunctionDescriptor
    public let parametersJSON: String
    public let destination: String
    /// The columns the access SQL reads (`Table.column`, `Table.*`).
    public let reads: [String]
    public let status: FlowStatus
    /// The approval in force when `status` is approved.
    public let approval: Approval?
    /// The reason given with a denial.
    public let reason: String?
    public let createdAt: String
    public let decidedAt: String?
    /// The path of the program that asked for the flow through the daemon; nil for flows asked
    /// in-process (CLI, embedded escrow).
    public let programPath: String?
    /// SHA-256 of the program's executable the current decision was made for (the latest seen).
    public let programDigest: String?
    /// The location accuracy the app asked for, if it asked.
    public let requestedAccuracy: LocationAccuracy?
    /// The location accuracy the individual chose, if they chose one.
    public let chosenAccuracy: LocationAccuracy?
    /// The size of the compute module the flow runs (whose SHA-256 is `function.codeDigest`);
    /// nil for a function built into the escrow.
    public let moduleBytes: Int?

    /// Whether the flow runs a compute module the app brought.
    public var isModule: Bool { moduleBytes != nil }

    /// The accuracy every run of this flow gets: the coarser of what the app asked for and what
    /// the individual chose (each exact when not given).
    public var locationAccuracy: LocationAccuracy {
        LocationAccuracy.coarser(requestedAccuracy ?? .exact, chosenAccuracy ?? .exact)
    }

    /// Whether the access SQL reads where the individual is: a column of Location, or a
    /// photo's coordinates.
    public var readsLocation: Bool {
        reads.contains { LocationColumns.locates($0) }
    }

    /// The tables read, sorted.
    public var tables: [String] {
        Set(reads.compactMap { $0.split(separator: ".").first.map(String.init) }).sorted()
    }
}

/// The columns that say where the individual is, which a location accuracy below exact masks,
/// drops or coarsens (docs/LOCATION.md).
public enum LocationColumns {
    /// The table whose every row is a place the individual was.
    public static let table = "Location"
    /// Photos' columns that locate: the coordinates, and the asset, whose file may carry the
    /// position in its metadata (EXIF, XMP).
    public static let photoColumns: Set<String> = ["latitude", "longitude", "asset"]

    /// Whether `read` (`Table.column` or `Table.*`) reads location.
    public static func locates(_ read: String) -> Bool {
        let parts = read.split(separator: ".", maxSplits: 1).map(String.init)
        guard let table = parts.first else { return false }
        if table == Self.table { return true }
        return table == "Photos" && parts.count == 2 && (photoColumns.contains(parts[1]) || parts[1] == "*")
    }
}

/// One decision in a flow's history.
public struct DecisionRecord: Sendable, Hashable {
    public let time: String
    public let decision: String
    public let reason: String?
}

/// Why a run was not allowed to proceed: the app's answer.
public enum DecisionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The flow is new (or its approval was used up or expired): the individual has to decide.
    case awaitingApproval(flow: String)
    /// The individual denied the flow.
    case denied(flow: String, reason: String?)
    /// The individual revoked the flow's approval.
    case revoked(flow: String)

    /// The flow's short id.
    public var flow: String {
        switch self {
        case .awaitingApproval(let flow), .denied(let flow, _), .revoked(let flow): flow
        }
    }

    public var description: String {
        switch self {
        case .awaitingApproval(let flow):
            "dataflow \(flow) is awaiting approval"
        case .denied(let flow, let reason):
            "dataflow \(flow) was denied by the individual\(reason.map { ": \($0)" } ?? "")"
        case .revoked(let flow):
            "dataflow \(flow) was approved, but the approval has been revoked"
        }
    }
}

/// A decision the individual asked for that cannot be made.
public enum FlowError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownFlow(String)
    case ambiguousFlow(String, matches: [String])
    case notApproved(flow: String, status: FlowStatus)
    case approvalInThePast(String)

    public var description: String {
        switch self {
        case .unknownFlow(let id):
            "no dataflow '\(id)'"
        case .ambiguousFlow(let id, let matches):
            "'\(id)' matches several dataflows (\(matches.joined(separator: ", "))); give more characters of the id"
        case .notApproved(let flow, let status):
            "dataflow \(flow) is \(status.rawValue), not approved: there is nothing to revoke"
        case .approvalInThePast(let date):
            "an approval until \(date) would already have ended: that time is in the past"
        }
    }
}
