import EscrowCore
import Synchronization

/// The network client one run's compute function is handed: it sends through the escrow's client
/// and observes every request on the way (host, method, bytes, status, whether the individual's
/// data appears in it), refusing those to a blocked domain.
///
/// One recorder per run: `observations` are that run's requests, in the order they were sent.
/// Only domain-level facts are kept; the URL, headers and body are looked at (for the sent-data
/// hint) and forgotten.
///
/// Thread safety: `send` may be called from any number of tasks of the run at once.
public final class EgressRecorder: NetworkClient {
    /// The most requests one run may make; further ones are refused (and not recorded).
    public static let defaultLimit = 10_000

    private let base: any NetworkClient
    /// Reads the blocked domains, on the first request; then `blocked` holds them.
    private let readBlocked: @Sendable () throws -> DomainSet
    private let blocked = Mutex<DomainSet?>(nil)
    /// The frame the scanner is made from, on the first request; nil when it was given made.
    private let input: Frame?
    /// The sent-value scanner, once made.
    private let scanner: Mutex<SentValueScanner?>
    private let clock: any WallClock
    private let limit: Int
    private let recorded = Mutex<[EgressObservation]>([])

    /// - Parameters:
    ///   - base: the client requests go out through.
    ///   - blocked: domains the individual blocks: a request under one fails with
    ///     `ComputeError.blocked` and is recorded as blocked.
    ///   - scanner: the run's input values, for the sent-data hint.
    ///   - clock: when each request was sent.
    ///   - limit: the most requests the run may make.
    public init(base: any NetworkClient, blocked: DomainSet = DomainSet(), scanner: SentValueScanner,
                clock: any WallClock = .system, limit: Int = EgressRecorder.defaultLimit) {
        self.base = base
        self.readBlocked = { blocked }
        self.input = nil
        self.scanner = Mutex(scanner)
        self.clock = clock
        self.limit = limit
    }

    /// A recorder that makes its sent-value scanner from `input` on the function's first request:
    /// a run that contacts nothing never pays for it (about 11 ms for 5000 contacts), and a
    /// compute server's event loop never does.
    ///
    /// - Parameters:
    ///   - base: the client requests go out through.
    ///   - blocked: domains the individual blocks (see `init(base:blocked:scanner:clock:limit:)`).
    ///   - input: the frame the function reads: the sent-data hint looks for its values.
    ///   - clock: when each request was sent.
    ///   - limit: the most requests the run may make.
    public convenience init(base: any NetworkClient, blocked: DomainSet = DomainSet(), input: Frame,
                            clock: any WallClock = .system, limit: Int = EgressRecorder.defaultLimit) {
        self.init(base: base, blocked: { blocked }, input: input, clock: clock, limit: limit)
    }

    /// A recorder that also reads the blocked domains on the function's first request, so a run
    /// that contacts nothing never reads the individual's filters. When they cannot be read, the
    /// request fails and nothing is sent.
    ///
    /// - Parameters:
    ///   - blocked: reads the domains the individual blocks (called once).
    ///   - others: see `init(base:blocked:input:clock:limit:)`.
    public init(base: any NetworkClient, blocked: @escaping @Sendable () throws -> DomainSet, input: Frame,
                clock: any WallClock = .system, limit: Int = EgressRecorder.defaultLimit) {
        self.base = base
        self.readBlocked = blocked
        self.input = input
        self.scanner = Mutex(nil)
        self.clock = clock
        self.limit = limit
    }

    /// The requests made so far, oldest first.
    public var observations: [EgressObservation] { recorded.withLock { $0 } }

    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        guard let url = RequestURL(request.url) else {
            // Nothing was sent: there is no host to record.
            throw ComputeError.serviceFailed("'\(request.url)' is not an http(s) URL with a valid host")
        }
        guard Self.isMethod(request.method) else {
            throw ComputeError.serviceFailed("'\(request.method.prefix(20))' is not an HTTP method (1 to 16 letters, such as GET or POST)")
        }
        var observation = EgressObservation(
            time: Int64(clock.secondsSince1970.rounded(.down)), host: url.hostName.text, method: request.method,
            bytesOut: Self.bytesOut(request), bytesIn: 0, status: nil, blocked: false,
            sentData: sentValueScanner().appears(inURL: request.url, body: request.body))
        let blockedBy = try blockedDomains().match(url.hostName)
        observation.blocked = blockedBy != nil
        let index = try recorded.withLock { list throws(ComputeError) -> Int in
            guard list.count < limit else { throw .tooManyRequests(limit: limit) }
            list.append(observation)
            return list.count - 1
        }
        if let blockedBy { throw ComputeError.blocked(host: url.hostName.text, domain: blockedBy) }
        let response = try await base.send(request)
        recorded.withLock { list in
            list[index].status = response.status
            list[index].bytesIn = response.body.count
        }
        return response
    }

    /// The blocked domains, read now if they were not yet.
    ///
    /// - Throws: `ComputeError.serviceFailed` when they cannot be read (the request is not sent).
    private func blockedDomains() throws(ComputeError) -> DomainSet {
        do {
            return try blocked.withLock { blocked in
                if let blocked { return blocked }
                let read = try readBlocked()
                blocked = read
                return read
            }
        } catch {
            throw .serviceFailed("the escrow could not read which domains the individual blocks, so it sent nothing: \(error)")
        }
    }

    /// The scanner, made now from `input` if it was not yet (once, even when requests start at
    /// the same time).
    private func sentValueScanner() -> SentValueScanner {
        scanner.withLock { scanner in
            if let scanner { return scanner }
            let made = SentValueScanner(input ?? .empty)
            scanner = made
            return made
        }
    }

    /// Adds requests another client made for this run: those a compute server reports back. Up to
    /// the run's limit; the rest are dropped (the server enforces the same limit).
    public func add(reported: [EgressObservation]) {
        recorded.withLock { list in
            list.append(contentsOf: reported.prefix(max(0, limit - list.count)))
        }
    }

    /// Whether `method` is a method the escrow sends and records: 1 to 16 ASCII letters.
    static func isMethod(_ method: String) -> Bool {
        let bytes = method.utf8
        return (1...16).contains(bytes.count)
            && bytes.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0 & 0xDF) }
    }

    /// What a request carries out: its URL, its header fields and its body.
    static func bytesOut(_ request: NetworkRequest) -> Int {
        var count = request.url.utf8.count + request.body.count
        for (name, value) in request.headers { count += name.utf8.count + value.utf8.count + 4 }
        return count
    }
}
