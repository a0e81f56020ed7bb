import EscrowCore
import EscrowEgress

/// One recorded request with the run it belongs to: the unit every egress report counts.
public struct RecordedRequest: Sendable, Hashable {
    /// The app whose dataflow ran (reverse-DNS id).
    public var app: String
    /// The dataflow's short id.
    public var flowID: String
    /// The run's audit entry number.
    public var run: Int
    public var record: EgressRecord

    public init(app: String, flowID: String, run: Int, record: EgressRecord) {
        self.app = app
        self.flowID = flowID
        self.run = run
        self.record = record
    }
}

/// One run of a dataflow (an audit entry whose compute function ran, or tried to).
public struct RecordedRun: Sendable, Hashable {
    public var app: String
    public var flowID: String
    /// The audit entry number.
    public var seq: Int
    /// When it ran, in whole seconds since 1970 (UTC).
    public var time: Int64
    /// How long the whole run took, in milliseconds (its compute time for the reports).
    public var durationMs: Double

    public init(app: String, flowID: String, seq: Int, time: Int64, durationMs: Double) {
        self.app = app
        self.flowID = flowID
        self.seq = seq
        self.time = time
        self.durationMs = durationMs
    }
}

/// One dataflow as the transparency report lists it.
public struct FlowSummary: Sendable, Hashable {
    public var id: String
    public var app: String
    public var purpose: String
    public var functionID: String
    /// `on this device` or `on compute server ID`.
    public var place: String
    /// The decision in plain words (`approved`, `approved until …`, `denied: reason`, `pending`, `revoked`).
    public var decision: String
    /// `approved`, `pending`, `denied` or `revoked`: what colour the decision is shown in.
    public var status: String
    /// Columns the flow reads (`Location.latitude`, …).
    public var reads: [String]

    public init(id: String, app: String, purpose: String, functionID: String, place: String, decision: String,
                status: String, reads: [String]) {
        self.id = id
        self.app = app
        self.purpose = purpose
        self.functionID = functionID
        self.place = place
        self.decision = decision
        self.status = status
        self.reads = reads
    }
}
