import EscrowCore
import Synchronization

/// Turns what the network client observed into what the escrow records: each request's
/// registrable domain (Public Suffix List) and the tracker domain it falls under (EasyList,
/// EasyPrivacy and the individual's own list).
///
/// The lists are read on first use (about 0.3 s for EasyList and EasyPrivacy), once per process
/// and set of files: a run whose function contacted nothing never reads them.
///
/// Thread safety: shared by every run of a process.
public final class EgressClassifier: Sendable {
    /// Where the lists are read from.
    public struct Sources: Sendable, Hashable {
        public var publicSuffixList: String
        public var trackerLists: [String]

        public init(publicSuffixList: String = PublicSuffixList.debianPath, trackerLists: [String] = TrackerList.debianPaths) {
            self.publicSuffixList = publicSuffixList
            self.trackerLists = trackerLists
        }
    }

    /// The lists, or why they could not be read.
    public struct Lists: Sendable {
        public let suffixes: Result<PublicSuffixList, EgressListError>
        public let trackers: Result<TrackerList, EgressListError>
    }

    public let sources: Sources
    private let loaded = Mutex<Lists?>(nil)

    private static let shared = Mutex<[Sources: EgressClassifier]>([:])

    /// The process's classifier over `sources` (made on first use).
    public static func shared(_ sources: Sources = Sources()) -> EgressClassifier {
        shared.withLock { cache in
            if let classifier = cache[sources] { return classifier }
            let classifier = EgressClassifier(sources: sources)
            cache[sources] = classifier
            return classifier
        }
    }

    /// A classifier of its own over `sources` (tests; the escrow uses `shared`).
    public init(sources: Sources) {
        self.sources = sources
    }

    /// The lists, read now if they were not yet.
    public var lists: Lists {
        loaded.withLock { lists in
            if let lists { return lists }
            let made = Lists(
                suffixes: Result { () throws(EgressListError) in try PublicSuffixList(contentsOf: sources.publicSuffixList) },
                trackers: Result { () throws(EgressListError) in try TrackerList(filterLists: sources.trackerLists) })
            lists = made
            return made
        }
    }

    /// The records of `observations`, leaving out those `policy` ignores. A list that cannot be
    /// read classifies nothing (the domain is then the host itself, and no host is a tracker but
    /// those of the individual's own list); `lists` says why.
    public func classify(_ observations: [EgressObservation], policy: EgressPolicy) -> [EgressRecord] {
        guard !observations.isEmpty else { return [] }
        let lists = self.lists
        let suffixes = try? lists.suffixes.get()
        let trackers = try? lists.trackers.get()
        var records: [EgressRecord] = []
        records.reserveCapacity(observations.count)
        for observation in observations {
            guard let host = HostName(observation.host) else {
                records.append(EgressRecord(observation: observation, domain: observation.host, tracker: nil))
                continue
            }
            if policy.ignores(host) { continue }
            let domain = suffixes?.registrableDomain(of: host) ?? host.text
            let tracker = policy.trackers.match(host) ?? trackers?.match(host)
            var normalized = observation
            normalized.host = host.text
            records.append(EgressRecord(observation: normalized, domain: domain, tracker: tracker))
        }
        return records
    }
}
