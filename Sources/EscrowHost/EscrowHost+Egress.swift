import EscrowCore
import EscrowEgress
import EscrowNetwork
import EscrowStore
import Logging
import Synchronization

/// One run's egress: the individual's filters, read once when first needed (a run whose function
/// contacts nothing never reads them), and the recorder its compute function's requests go through
/// (or, on a compute server, are reported into).
struct Egress: Sendable {
    private let filters: FilterSnapshot
    let recorder: EgressRecorder

    init(filters: EgressFilters, input: Frame, network: any NetworkClient, clock: any WallClock) {
        let snapshot = FilterSnapshot(filters)
        self.filters = snapshot
        self.recorder = EgressRecorder(base: network, blocked: { try snapshot.read().policy.blocked }, input: input, clock: clock)
    }

    /// The filters as the run applies them.
    func policy() throws -> EgressPolicy { try filters.read().policy }

    /// The blocked domains, for a compute server to apply.
    func blockedDomains() throws -> [String] { try filters.read().blocked }
}

/// The individual's filters as one run reads them: once, the first time they are needed.
final class FilterSnapshot: Sendable {
    private let filters: EgressFilters
    private let cached = Mutex<Result<(policy: EgressPolicy, blocked: [String]), any Error>?>(nil)

    init(_ filters: EgressFilters) {
        self.filters = filters
    }

    /// The filters, read now if they were not yet (a failure is kept: the run sees one answer).
    func read() throws -> (policy: EgressPolicy, blocked: [String]) {
        let result = cached.withLock { cached in
            if let cached { return cached }
            let result = Result { try filters.policy() }
            cached = result
            return result
        }
        return try result.get()
    }
}

extension EscrowHost {
    /// The setting naming the tracker lists (adblock filter lists), separated by `:`; EasyList and
    /// EasyPrivacy from Debian's package when absent.
    public static let trackerListsSetting = "tracker-lists"

    /// Where this home's classifier reads its lists.
    static func egressSources(_ state: StateDatabase) throws(StoreError) -> EgressClassifier.Sources {
        var sources = EgressClassifier.Sources()
        if let value = try state.setting(trackerListsSetting), !value.isEmpty {
            sources.trackerLists = value.split(separator: ":").map(String.init)
        }
        return sources
    }

    /// The setting of hosts the network client reaches at fixed addresses instead of through DNS:
    /// `HOST=ADDRESS` entries separated by spaces (`HostResolution`).
    public static let resolveSetting = "network.resolve"

    /// The escrow's HTTP client, with the home's fixed addresses.
    static func networkClient(_ state: StateDatabase) throws(StoreError) -> HTTPNetworkClient {
        let value = try state.setting(resolveSetting)
        do {
            return HTTPNetworkClient(resolve: try HostResolution(parsing: (value ?? "").split(separator: " ")))
        } catch {
            throw StoreError(message: "the setting \(resolveSetting) cannot be used: \(error); change it with escrow config set")
        }
    }

    private static let reportedLists = Mutex<Set<EgressClassifier.Sources>>([])

    /// Logs, once per process and set of lists, a list the classifier could not read; for the
    /// individual's own tracker lists, with the setting that names them and how to change it.
    static func reportUnreadableLists(_ classifier: EgressClassifier, logger: Logger) {
        let lists = classifier.lists
        let problems = [lists.suffixes.failure, lists.trackers.failure].compactMap { $0 }
        guard !problems.isEmpty,
              reportedLists.withLock({ $0.insert(classifier.sources).inserted }) else { return }
        for problem in problems {
            var metadata: Logger.Metadata = ["problem": "\(problem)"]
            if problem == lists.trackers.failure, classifier.sources.trackerLists != TrackerList.debianPaths {
                metadata["fix"] = .string("the setting \(trackerListsSetting) names it: put the file back, or change the setting "
                    + "(escrow config set \(trackerListsSetting) FILE:FILE…, or escrow config unset \(trackerListsSetting) for EasyList and EasyPrivacy); "
                    + "until then no request is flagged as a tracker but by escrow filter tracker")
            }
            logger.error("egress is recorded without a list it needs", metadata: metadata)
        }
    }

    /// Deletes audit entries older than the home's retention setting (`escrow config set
    /// retention-days N`); a setting that cannot be applied is logged, never fatal to the caller.
    ///
    /// - Returns: how many entries were deleted.
    @discardableResult
    public func applyRetention() -> Int {
        do {
            let deleted = try audit.applyRetention()
            if deleted > 0 { logger.info("retention deleted old audit entries", metadata: ["entries": "\(deleted)"]) }
            return deleted
        } catch {
            logger.error("could not apply the retention setting", metadata: ["error": "\(error)"])
            return 0
        }
    }
}

extension Result {
    /// The error, or nil for a success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
