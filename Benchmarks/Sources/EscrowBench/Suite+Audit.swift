import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowStore

// Issue 3's figure: the cost per run of the approval check plus the durable audit append.
extension Suite {
    static let auditCallsPerRepetition = 500

    private struct AuditFixture {
        let scratch: ScratchHome
        let flows: FlowStore
        let audit: AuditLog
        let identity: FlowIdentity
    }

    /// Per repetition: a fresh home whose state database commits with `durability`, the location
    /// flow approved (untimed); then 500 times the decision step for the approved flow followed by
    /// one audit append, each its own committed transaction, as run() does. Reports the mean per
    /// run.
    func approvalAndAudit(_ durability: AuditDurability) async throws -> FigureResult {
        let clock = ContinuousClock()
        let calls = Self.auditCallsPerRepetition
        let request = DataflowRequest(app: "org.wikipedia.nearby", purpose: "show articles near me",
                                      access: Self.locationSQL, compute: LocationRegion.id)
        let function = try EscrowFunctions.catalog.function(LocationRegion.id).descriptor
        let lineage = Lineage([ColumnRead(table: "Location", column: "latitude"),
                               ColumnRead(table: "Location", column: "longitude"),
                               ColumnRead(table: "Location", column: "timestamp")])
        let samples = try await sampler.collect(
            setUp: { () throws -> AuditFixture in
                let scratch = try ScratchHome.initialized()
                try StateDatabase(home: scratch.home).setSetting(AuditDurability.settingName, to: durability.rawValue)
                let state = try StateDatabase(home: scratch.home)
                guard state.durability == durability else { throw BenchError("durability setting not applied") }
                let flows = FlowStore(state: state)
                let identity = FlowIdentity(request: request, function: function)
                guard case .refused(let refusal) = try flows.decide(identity, accessSQL: request.access, lineage: lineage) else {
                    throw BenchError("a new flow was not pending")
                }
                try flows.approve(refusal.flow, .always)
                return AuditFixture(scratch: scratch, flows: flows, audit: AuditLog(state: state), identity: identity)
            },
            body: { fixture in
                var facts = AuditDraft(flowID: nil, app: request.app, purpose: request.purpose, functionID: function.id,
                                       outcome: .ok, destination: "device")
                facts.reads = lineage.sorted.map(\.description)
                facts.rowsRead = 1
                facts.bytesToCompute = 16
                facts.outputSHA256 = String(repeating: "ab", count: 32)
                let elapsed = try clock.measure {
                    for _ in 0..<calls {
                        guard case .allowed(let flow, _) = try fixture.flows.decide(fixture.identity, accessSQL: request.access,
                                                                                 lineage: lineage) else {
                            throw BenchError("the approved flow was refused")
                        }
                        facts.flowID = flow
                        try fixture.audit.append(facts)
                    }
                }
                return elapsed.seconds / Double(calls)
            },
            tearDown: { fixture in fixture.scratch.remove() }
        )
        return FigureResult(name: "approval check + audit append (\(durability.rawValue))", unit: .microseconds,
                            seconds: samples, target: durability == .processCrash ? 100 : nil)
    }
}
