import EscrowCore
import EscrowEgress
import EscrowReports
import EscrowTestSupport

/// Recorded runs and requests for the egress report tests, with every field the test does not
/// care about filled in.
enum EgressFixture {
    /// A request to `host`, its registrable domain the last two labels unless given.
    static func request(app: String = "com.example.app", host: String, domain: String? = nil, time: Int64,
                        tracker: String? = nil, blocked: Bool = false, sentData: Bool = false,
                        bytesOut: Int = 100, bytesIn: Int = 1_000, flowID: String = "flow", run: Int = 1) -> RecordedRequest {
        let observation = EgressObservation(time: time, host: host, method: "GET", bytesOut: bytesOut, bytesIn: bytesIn,
                                            status: blocked ? nil : 200, blocked: blocked, sentData: sentData)
        let registrable = domain ?? host.split(separator: ".").suffix(2).joined(separator: ".")
        return RecordedRequest(app: app, flowID: flowID, run: run,
                               record: EgressRecord(observation: observation, domain: registrable, tracker: tracker))
    }

    static func run(app: String = "com.example.app", durationMs: Double, seq: Int = 1, time: Int64 = 1_764_000_000) -> RecordedRun {
        RecordedRun(app: app, flowID: "flow", seq: seq, time: time, durationMs: durationMs)
    }



    /// `count` requests of 50 apps to 2,000 hosts under 500 domains over a day, a tenth to trackers.
    static func many(_ count: Int, seed: UInt64 = 14) -> [RecordedRequest] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let domainIndex = Int.random(in: 0..<500, using: &generator)
            let domain = "site\(domainIndex).example"
            return request(app: "com.example.app\(Int.random(in: 0..<50, using: &generator))",
                           host: "h\(Int.random(in: 0..<4, using: &generator)).\(domain)", domain: domain,
                           time: 1_764_000_000 + Int64.random(in: 0..<86_400, using: &generator),
                           tracker: domainIndex % 10 == 0 ? domain : nil, blocked: index % 97 == 0, run: index / 10)
        }
    }
}
