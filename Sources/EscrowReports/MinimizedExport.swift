import EscrowCore
import EscrowEgress

/// The data-minimized export of recorded egress (`escrow export`): one row per app, host and ISO
/// week, in the field names of Apple's App Privacy Report (`networkActivity` entries) where they
/// fit, so tools that read that format open ours.
///
/// What it keeps is what AppChk shares (section 3, data minimization): dates only as an ISO
/// year and week, times only as whole seconds relative to the first exported request. It never
/// holds an absolute timestamp, a flow id, a run number, a path or anything else of a request.
///
/// A row's fields, in this order:
/// - `type`: `networkActivity`; `bundleID`: the app id;
/// - `domain`: the host (as Apple uses the word); `domainOwner`: the tracker-list domain the host
///   falls under, or `""`; `context`: the host's registrable domain; `initiatedType`: `AppInitiated`;
/// - `hits`: requests; `firstTimeStamp`, `timeStamp`: the row's first and last request, in whole
///   seconds after the first exported request (integers, not dates);
/// - ours: `week` (`2026-W48`), `tracker`, `blocked` and `sentData` (request counts), `bytesOut`,
///   `bytesIn` (sums).
///
/// The output is deterministic: rows sorted by `firstTimeStamp`, app, host; the same requests in
/// any order give the same bytes.
///
/// Thread safety: pure functions over values; call them from any task.
public enum MinimizedExport {
    /// How the rows are written.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// One JSON object per line, each line ending in a newline (like Apple's export).
        case ndjson
        /// One JSON object `{"format":"escrow-egress-export","version":1,"requests":[…]}`.
        case json
    }

    /// The `format` field of the JSON form.
    public static let formatName = "escrow-egress-export"
    /// The `version` field of the JSON form.
    public static let version = 1

    /// One app's requests to one host in one ISO week.
    public struct Row: Sendable, Hashable {
        public var bundleID: String
        /// The host.
        public var domain: String
        /// The tracker-list domain the host falls under; `""` when it is no tracker.
        public var domainOwner: String
        /// The host's registrable domain.
        public var context: String
        public var hits: Int
        /// Seconds from the first exported request to this row's first request.
        public var firstTimeStamp: Int64
        /// Seconds from the first exported request to this row's last request.
        public var timeStamp: Int64
        public var week: ISOWeek
        public var blocked: Int
        public var sentData: Int
        public var bytesOut: Int
        public var bytesIn: Int

        public var tracker: Bool { !domainOwner.isEmpty }
    }

    /// The export as `format`.
    ///
    /// - Parameters:
    ///   - requests: the recorded requests.
    ///   - format: NDJSON or one JSON object.
    ///   - app: when given, only this app's requests; nil for every app.
    ///   - excluding: domains left out, each with every host under it, label-wise: `a.com` drops
    ///     `a.com` and `x.a.com`, never `x-a.com`; an IP address drops only itself. Host names are
    ///     normalized already (case, trailing dot, internationalized labels); text from a person
    ///     becomes one through `exclusions(_:)`, which refuses what is not a domain.
    /// - Returns: UTF-8 text ending in a newline (empty for NDJSON without rows).
    public static func text(_ requests: [RecordedRequest], format: Format, app: String? = nil,
                            excluding: [HostName] = []) -> String {
        switch format {
        case .ndjson: ndjson(requests, app: app, excluding: excluding)
        case .json: json(requests, app: app, excluding: excluding)
        }
    }

    /// The export as NDJSON: one row object per line (see `text(_:format:app:excluding:)`).
    public static func ndjson(_ requests: [RecordedRequest], app: String? = nil, excluding: [HostName] = []) -> String {
        let rows = rows(requests, app: app, excluding: excluding)
        var writer = JSONWriter(capacity: rows.count * 320)
        for row in rows {
            writer.object { row.write(to: &$0) }
            writer.raw("\n")
        }
        return writer.text
    }

    /// The export as one JSON object (see `text(_:format:app:excluding:)`).
    public static func json(_ requests: [RecordedRequest], app: String? = nil, excluding: [HostName] = []) -> String {
        let rows = rows(requests, app: app, excluding: excluding)
        var writer = JSONWriter(capacity: rows.count * 320 + 64)
        writer.object { object in
            object.field("format", formatName)
            object.field("version") { $0.int(Int64(version)) }
            object.field("requests") { $0.array(rows) { writer, row in writer.object { row.write(to: &$0) } } }
        }
        writer.raw("\n")
        return writer.text
    }

    /// The rows of the export, sorted (see `text(_:format:app:excluding:)` for the parameters).
    ///
    /// One pass over the requests with apps and hosts as indices (exclusion decided once per
    /// host), then one sort of the rows: 100,000 requests take tens of milliseconds.
    public static func rows(_ requests: [RecordedRequest], app: String? = nil, excluding: [HostName] = []) -> [Row] {
        let exclusion = Exclusion(excluding)
        var apps = StringTable()
        var hosts = StringTable(capacity: 1_024)
        var hostExcluded: [Bool] = []
        var groupIndex: [Key: Int] = [:]
        var groups: [Group] = []
        var start = Int64.max
        for request in requests where app == nil || request.app == app {
            let record = request.record
            let host = hosts.index(of: record.observation.host)
            if host == hostExcluded.count { hostExcluded.append(exclusion.excludes(record.observation.host)) }
            guard !hostExcluded[host] else { continue }
            let time = record.observation.time
            start = min(start, time)
            let key = Key(app: apps.index(of: request.app), host: host, week: ISOWeek(secondsSince1970: time))
            if let index = groupIndex[key] {
                groups[index].add(record)
            } else {
                groupIndex[key] = groups.count
                groups.append(Group(key: key, record: record))
            }
        }
        let order = groups.indices.sorted { left, right in
            let (a, b) = (groups[left], groups[right])
            if a.first != b.first { return a.first < b.first }
            if a.key.app != b.key.app { return apps[a.key.app] < apps[b.key.app] }
            return hosts[a.key.host] < hosts[b.key.host]
        }
        return order.map { index in
            let group = groups[index]
            return Row(bundleID: apps[group.key.app], domain: hosts[group.key.host], domainOwner: group.tracker ?? "",
                       context: group.domain, hits: group.hits, firstTimeStamp: group.first - start,
                       timeStamp: group.last - start, week: group.key.week, blocked: group.blocked,
                       sentData: group.sentData, bytesOut: group.bytesOut, bytesIn: group.bytesIn)
        }
    }

    /// What makes a row: an app and a host (indices into their tables) and a week.
    private struct Key: Hashable {
        var app: Int
        var host: Int
        var week: ISOWeek
    }

    /// One row's requests, with absolute times until the start is known.
    private struct Group {
        var key: Key
        var domain: String
        var tracker: String?
        var hits = 0
        var first = Int64.max
        var last = Int64.min
        var blocked = 0
        var sentData = 0
        var bytesOut = 0
        var bytesIn = 0

        init(key: Key, record: EgressRecord) {
            self.key = key
            domain = record.domain
            add(record)
        }

        mutating func add(_ record: EgressRecord) {
            let observation = record.observation
            hits += 1
            first = min(first, observation.time)
            last = max(last, observation.time)
            if observation.blocked { blocked += 1 }
            if observation.sentData { sentData += 1 }
            bytesOut += observation.bytesOut
            bytesIn += observation.bytesIn
            // Independent of the requests' order, should the lists have changed between them.
            if record.domain != domain { domain = min(domain, record.domain) }
            if let owner = record.tracker, owner != tracker { tracker = min(tracker ?? owner, owner) }
        }
    }

    /// The excluded domains, matched label-wise from the right.
    struct Exclusion {
        let domains: Set<String>

        init(_ domains: [HostName]) {
            self.domains = Set(domains.map(\.text))
        }

        func excludes(_ host: String) -> Bool {
            guard !domains.isEmpty else { return false }
            if domains.contains(host) { return true }
            guard !HostAddress.isIPLiteral(host) else { return false }
            var rest = Substring(host)
            while let dot = rest.firstIndex(of: ".") {
                rest = rest[rest.index(after: dot)...]
                if domains.contains(String(rest)) { return true }
            }
            return false
        }
    }
}

extension MinimizedExport.Row {
    /// Writes the row's fields in the documented order.
    fileprivate func write(to object: inout JSONWriter.ObjectWriter) {
        object.field("type", "networkActivity")
        object.field("bundleID", bundleID)
        object.field("domain", domain)
        object.field("domainOwner", domainOwner)
        object.field("context", context)
        object.field("initiatedType", "AppInitiated")
        object.field("hits") { $0.int(Int64(hits)) }
        object.field("firstTimeStamp") { $0.int(firstTimeStamp) }
        object.field("timeStamp") { $0.int(timeStamp) }
        object.field("week", week.description)
        object.field("tracker") { $0.bool(tracker) }
        object.field("blocked") { $0.int(Int64(blocked)) }
        object.field("sentData") { $0.int(Int64(sentData)) }
        object.field("bytesOut") { $0.int(Int64(bytesOut)) }
        object.field("bytesIn") { $0.int(Int64(bytesIn)) }
    }
}
