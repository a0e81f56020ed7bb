import EscrowCore
import EscrowEgress
import EscrowReports
import EscrowTestSupport

/// Realistic inputs for the transparency report tests: three apps (one with a hostile id), about
/// 500 requests over ten days to first-party hosts and trackers, dataflows in every status, and
/// hostile text in app ids, purposes, decisions and domains.
enum TransparencyReportSamples {
    /// Text that would be markup, or reorder what follows, if it reached the page unescaped.
    static let hostile = [
        "<script>alert(1)</script>",
        "\"><img src=x onerror=alert(1)>",
        "'><svg onload=alert(1)>",
        "evil\u{202E}gnp.exe",
        "a&b\u{1B}[31m\u{0}",
    ]

    static let weather = "com.example.weather"
    static let fitness = "org.example.fitness"
    /// An app id that tries every trick at once.
    static let hostileApp = "net.example.<script>alert(1)</script>\"><img src=x onerror=alert(1)>\u{202E}ppa"

    /// 2026-11-10 00:00:00 UTC.
    static let start: Int64 = 1_794_268_800

    /// A host one of the apps contacts: its registrable domain and the tracker-list domain it
    /// falls under, if any.
    struct Host {
        var name: String
        var domain: String
        var tracker: String?
        /// How often the app contacts it, relative to its other hosts.
        var weight: Int
    }

    static let hosts: [String: [Host]] = [
        weather: [
            Host(name: "api.weather.example", domain: "weather.example", weight: 10),
            Host(name: "tiles.weather.example", domain: "weather.example", weight: 4),
            Host(name: "stats.g.doubleclick.net", domain: "doubleclick.net", tracker: "doubleclick.net", weight: 3),
            Host(name: "www.google-analytics.com", domain: "google-analytics.com", tracker: "google-analytics.com", weight: 2),
            Host(name: "www.google.com", domain: "google.com", weight: 1),
            Host(name: "adservice.google.com", domain: "google.com", tracker: "adservice.google.com", weight: 1),
        ],
        fitness: [
            Host(name: "sync.fitness.example", domain: "fitness.example", weight: 8),
            Host(name: "api.mapbox.com", domain: "mapbox.com", weight: 5),
            Host(name: "graph.facebook.com", domain: "facebook.com", tracker: "graph.facebook.com", weight: 2),
            Host(name: "app-measurement.com", domain: "app-measurement.com", tracker: "app-measurement.com", weight: 3),
            Host(name: "o123.ingest.sentry.io", domain: "sentry.io", weight: 1),
        ],
        hostileApp: [
            Host(name: "cdn.example.net", domain: "example.net", weight: 3),
            Host(name: "x.<script>alert(1)</script>.example", domain: "<script>alert(1)</script>.example",
                 tracker: "<script>alert(1)</script>.example", weight: 2),
            Host(name: "\"><img src=x onerror=alert(1)>", domain: "\"><img src=x onerror=alert(1)>", weight: 1),
            Host(name: "moc.\u{202E}evil.example", domain: "\u{202E}evil.example", tracker: "\u{202E}evil.example", weight: 1),
        ],
    ]

    /// About 500 requests of the three apps over ten days, more on weekdays, in time order.
    static func requests() -> [RecordedRequest] {
        var random = SplitMix64(seed: 0x5EED)
        var requests: [RecordedRequest] = []
        let perDay: [(app: String, count: Int, perRun: Int)] = [(weather, 24, 4), (fitness, 18, 6), (hostileApp, 6, 2)]
        for day in 0..<10 {
            let weekend = day == 4 || day == 5  // 2026-11-14 and -15
            for (app, base, perRun) in perDay {
                let appHosts = hosts[app] ?? []
                let totalWeight = appHosts.reduce(0) { $0 + $1.weight }
                let count = (weekend ? base / 2 : base) + Int(random.next() % 8)
                for index in 0..<count {
                    var pick = Int(random.next() % UInt64(totalWeight))
                    var host = appHosts[0]
                    for candidate in appHosts {
                        if pick < candidate.weight {
                            host = candidate
                            break
                        }
                        pick -= candidate.weight
                    }
                    let time = start + Int64(day) * 86_400 + Int64(random.next() % 86_400)
                    let blocked = host.tracker != nil && random.next() % 5 == 0
                    let observation = EgressObservation(
                        time: time, host: host.name, method: index % 3 == 0 ? "POST" : "GET",
                        bytesOut: 300 + Int(random.next() % 900), bytesIn: blocked ? 0 : Int(random.next() % 20_000),
                        status: blocked ? nil : 200, blocked: blocked, sentData: host.tracker == nil && index % 4 == 0)
                    requests.append(RecordedRequest(
                        app: app, flowID: app == weather ? "weather.current" : "flow-\(day % 2)", run: day * 100 + index / perRun,
                        record: EgressRecord(observation: observation, domain: host.domain, tracker: host.tracker)))
                }
            }
        }
        return requests.sorted { $0.record.observation.time < $1.record.observation.time }
    }

    /// Dataflows in every status, some with hostile text.
    static let flows = [
        FlowSummary(id: "weather.current", app: weather, purpose: "Show the weather where you are",
                    functionID: "weather.current", place: "on this device", decision: "approved until 2026-12-31",
                    status: "approved", reads: ["Location.latitude", "Location.longitude"]),
        FlowSummary(id: "fitness.route", app: fitness, purpose: "Draw today's running route on a map",
                    functionID: "fitness.route", place: "on compute server lab-1", decision: "pending",
                    status: "pending", reads: ["Location.latitude", "Location.longitude", "Location.time"]),
        FlowSummary(id: "<script>alert(1)</script>", app: hostileApp, purpose: "\"><img src=x onerror=alert(1)>",
                    functionID: "evil\u{202E}gnp.exe", place: "on compute server '><svg onload=alert(1)>",
                    decision: "denied: <b>because</b> \"><img src=x onerror=alert(1)>", status: "denied",
                    reads: ["Contacts.<script>name</script>"]),
        FlowSummary(id: "fitness.steps", app: fitness, purpose: "Weekly step summary", functionID: "fitness.steps",
                    place: "on this device", decision: "revoked", status: "revoked", reads: ["Steps.count"]),
    ]

    /// The apps' metrics computed by hand from `requests` (memberwise: the report takes them as given).
    static func apps(for requests: [RecordedRequest]) -> [AppMetrics] {
        var byApp: [String: [RecordedRequest]] = [:]
        for request in requests { byApp[request.app, default: []].append(request) }
        var metrics = [weather, fitness, hostileApp].map { app in
            let mine = byApp[app] ?? []
            let runs = Set(mine.map(\.run)).count
            let seconds = Double(runs) * (app == weather ? 0.8 : app == fitness ? 2.5 : 0.4)
            let trackers = mine.count(where: { $0.record.isTracker })
            return AppMetrics(app: app, runs: runs, requests: mine.count, computeSeconds: seconds,
                              requestsPerMinute: seconds > 0 ? Double(mine.count) / (seconds / 60) : 0,
                              domains: Set(mine.map(\.record.domain)).count,
                              subdomains: Set(mine.map(\.record.observation.host)).count,
                              trackerShare: mine.isEmpty ? 0 : Double(trackers) / Double(mine.count),
                              blocked: mine.count(where: { $0.record.observation.blocked }),
                              sentData: mine.count(where: { $0.record.observation.sentData }))
        }
        for metric in AppMetrics.Metric.allCases {
            for index in metrics.indices {
                let value = metrics[index].value(metric)
                metrics[index].ranks[metric] = 1 + metrics.count(where: { $0.value(metric) > value })
            }
        }
        return metrics
    }

    /// The whole sample report.
    static func report(generated: String = "2026-11-20 09:30 UTC") -> TransparencyReport {
        let requests = requests()
        return TransparencyReport(generated: generated, flows: flows, apps: apps(for: requests), requests: requests)
    }
}
