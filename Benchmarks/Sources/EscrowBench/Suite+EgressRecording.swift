import EscrowCore
import EscrowEgress
import EscrowStore
import Foundation

// Issue 14: what recording costs a compute function's request. `EgressRecorder` wraps the
// network client of every run (host, method, bytes, status, the sent-data hint, blocked
// domains); the host classifies what it observed (registrable domain, tracker) after the run.
extension Suite {
    /// A network client that answers at once with a fixed response: what is left is the cost of
    /// the call itself, so the difference with a recorder around it is the recording.
    struct FixedResponseClient: NetworkClient {
        let response = NetworkResponse(status: 200, body: Array(#"{"temperature":12.5,"condition":"cloudy"}"#.utf8))

        func send(_ request: NetworkRequest) async throws -> NetworkResponse { response }
    }

    /// One request a compute function makes, with the frame it read (the scanner's input).
    struct RecordingCase {
        let name: String
        let request: NetworkRequest
        let scanner: SentValueScanner
        /// Whether the scanner must flag the request (checked once, untimed).
        let sendsData: Bool
        /// Requests timed per repetition and side.
        let count: Int
    }

    /// Requests per run in the recording figure: a recorder is made per run, as the host does.
    static let requestsPerRecordedRun = 8

    /// Per repetition, for each case: `count` requests through the fixed client alone and through
    /// an `EgressRecorder` around it (a new recorder every 8 requests, as one per run), the two
    /// sides alternating in blocks. Reports ns per request of each side and their difference;
    /// then the scanner's set-up per run and the classification per request.
    func egressRecording() async throws -> [FigureResult] {
        let frames = try Self.recordingFrames(contacts)
        let cases = Self.recordingCases(frames)
        for item in cases {
            let flagged = item.scanner.appears(inURL: item.request.url, body: item.request.body)
            guard flagged == item.sendsData else {
                throw BenchError("\(item.name): the scanner says \(flagged), expected \(item.sendsData)")
            }
        }
        let base = Self.opaque(FixedResponseClient())
        let clock = ContinuousClock()
        var results: [FigureResult] = []
        for item in cases {
            let samples = try await sampler.collect(
                setUp: { () },
                body: { _ -> (alone: Double, recorded: Double) in
                    var alone = Duration.zero
                    var recorded = Duration.zero
                    var statuses = 0
                    let blocks = 10
                    let perBlock = item.count / blocks
                    for block in 0..<blocks {
                        let direct = try await clock.measure {
                            for _ in 0..<perBlock { statuses &+= try await Self.send(item.request, through: base).status }
                        }
                        let viaRecorder = try await clock.measure {
                            var recorder = EgressRecorder(base: base, scanner: item.scanner)
                            for index in 0..<perBlock {
                                if index % Self.requestsPerRecordedRun == 0 && index > 0 {
                                    recorder = EgressRecorder(base: base, scanner: item.scanner)
                                }
                                statuses &+= try await Self.send(item.request, through: recorder).status
                            }
                            guard recorder.observations.last?.status == 200 else { throw BenchError("the recorder lost a response") }
                        }
                        // Alternate which side goes first.
                        if block % 2 == 0 { alone += direct; recorded += viaRecorder } else { recorded += viaRecorder; alone += direct }
                    }
                    guard statuses == 2 * 200 * blocks * perBlock else { throw BenchError("\(item.name): a response was lost") }
                    let count = Double(blocks * perBlock)
                    return (alone.seconds / count, recorded.seconds / count)
                },
                tearDown: { _ in }
            )
            results += [
                FigureResult(name: "request, \(item.name): fixed client alone", unit: .nanoseconds, seconds: samples.map(\.alone)),
                FigureResult(name: "request, \(item.name): through EgressRecorder", unit: .nanoseconds,
                             seconds: samples.map(\.recorded)),
                FigureResult(name: "request, \(item.name): recording overhead", unit: .nanoseconds,
                             seconds: samples.map { $0.recorded - $0.alone }),
            ]
        }
        results += try await scannerSetUp(frames)
        results.append(try await classification())
        return results
    }

    /// `client` as the protocol, out of the optimizer's sight: the direct side must make the
    /// call a compute function makes, not one inlined away.
    @inline(never)
    static func opaque(_ client: some NetworkClient) -> any NetworkClient { client }

    /// Through the protocol, as a compute function calls it.
    private static func send(_ request: NetworkRequest, through client: any NetworkClient) async throws -> NetworkResponse {
        try await client.send(request)
    }

    /// The frames compute functions read: the location flow's one row, a contacts-sized frame
    /// (500 contacts: names, emails, phones as the store holds them), and Figure 3's contacts
    /// flow (5000 contacts: names, phones).
    struct RecordingFrames {
        let location: Frame
        let contacts500: Frame
        let contacts5000: Frame
    }

    static func recordingFrames(_ contacts: [ContactRecord]) throws -> RecordingFrames {
        var latitude = ColumnBuilder(name: "latitude", type: .double)
        var longitude = ColumnBuilder(name: "longitude", type: .double)
        latitude.append(41.7886)
        longitude.append(-87.5987)
        let location = try Frame(columns: [latitude.build(), longitude.build()])
        let scratch = try ScratchHome.initialized()
        defer { scratch.remove() }
        let added = try DataWriter(home: scratch.home).insertContacts(contacts, containerID: "local").added
        guard added == contacts.count else { throw BenchError("insertContacts added \(added) of \(contacts.count)") }
        let database = try Database(path: scratch.home.dataDatabasePath, mode: .readOnly)
        let small = try textFrame(database, "SELECT givenName, familyName, emailAddresses, phoneNumbers FROM Contact LIMIT 500")
        let large = try textFrame(database, contactsSQL)
        guard small.rowCount == 500, large.rowCount == contactCount else {
            throw BenchError("the contact frames have \(small.rowCount) and \(large.rowCount) rows")
        }
        return RecordingFrames(location: location, contacts500: small, contacts5000: large)
    }

    /// The rows of a query over text columns, as a frame.
    private static func textFrame(_ database: Database, _ sql: String) throws -> Frame {
        let statement = try database.prepare(sql)
        defer { statement.reset() }
        var columns = (0..<statement.columnCount).map { ColumnBuilder(name: "c\($0)", type: .string) }
        while try statement.step() {
            for index in columns.indices {
                if let value = statement.string(Int32(index)) { columns[index].append(value) } else { columns[index].appendNull() }
            }
        }
        return try Frame(columns: columns.map { $0.build() })
    }

    /// The requests: weather.current's two (the location in the URL; an analytics event), and,
    /// over 500 contacts, contacts.discovery's POST of 500 SHA-256 hashes (34 KB, none of them a
    /// value of the frame: the whole body is scanned) and a small GET.
    static func recordingCases(_ frames: RecordingFrames) -> [RecordingCase] {
        let location = SentValueScanner(frames.location)
        let contacts = SentValueScanner(frames.contacts500)
        var hashes = "["
        for index in 0..<500 {
            var random = SeededGenerator(seed: UInt64(index))
            let digest = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
            hashes += (index == 0 ? "" : ",") + "\"\(digest)\""
        }
        hashes += "]"
        return [
            RecordingCase(name: "location GET, 1 row (location in the URL)",
                          request: NetworkRequest(url: "https://api.weather-example.com/weather?latitude=41.7886&longitude=-87.5987"),
                          scanner: location, sendsData: true, count: 50_000),
            RecordingCase(name: "analytics POST, 1 row (27-byte body)",
                          request: NetworkRequest(method: "POST", url: "https://analytics.weather-example.com/v1/events",
                                                  headers: ["Content-Type": "application/json"],
                                                  body: Array(#"{"event":"weather.viewed"}"#.utf8)),
                          scanner: location, sendsData: false, count: 50_000),
            RecordingCase(name: "GET, 500 contacts (56-byte URL)",
                          request: NetworkRequest(url: "https://api.contacts-example.org/v1/suggest?q=weather&lang=en"),
                          scanner: contacts, sendsData: false, count: 20_000),
            RecordingCase(name: "POST 500 hashes (\(hashes.utf8.count / 1000) KB), 500 contacts",
                          request: NetworkRequest(method: "POST", url: "https://directory.contacts-example.org/directory/match",
                                                  headers: ["Content-Type": "application/json"], body: Array(hashes.utf8)),
                          scanner: contacts, sendsData: false, count: 500),
        ]
    }

    /// `SentValueScanner(frame)`: made once per run from the frame the function reads (before
    /// its first request, and also for a run that makes none).
    private func scannerSetUp(_ frames: RecordingFrames) async throws -> [FigureResult] {
        let clock = ContinuousClock()
        var results: [FigureResult] = []
        for (name, frame, calls) in [("location, 1 row", frames.location, 10_000), ("500 contacts, 4 columns", frames.contacts500, 20),
                                     ("5000 contacts, Figure 3's 3 columns", frames.contacts5000, 4)] {
            var needles = 0
            let samples = try await sampler.collect(
                setUp: { () },
                body: { _ -> Double in
                    let elapsed = clock.measure {
                        for _ in 0..<calls { needles = SentValueScanner(frame).needleCount }
                    }
                    return elapsed.seconds / Double(calls)
                },
                tearDown: { _ in }
            )
            results.append(FigureResult(name: "sent-value scanner set-up per run, \(name) (\(needles) needles)",
                                        unit: .microseconds, seconds: samples))
        }
        return results
    }

    /// `EgressClassifier.classify` (host normalized, registrable domain, tracker lookup) over
    /// 1,000 observations of the report benchmark's hosts, EasyList + EasyPrivacy loaded
    /// beforehand; per request.
    private func classification() async throws -> FigureResult {
        let classifier = EgressClassifier(sources: EgressClassifier.Sources())
        let lists = classifier.lists
        _ = try lists.suffixes.get()
        _ = try lists.trackers.get()
        var random = SeededGenerator(seed: 1401)
        let observations = (0..<1000).map { index in
            let app = random.pick(EgressWorkload.apps)
            let host = app.trackers.isEmpty || Bool.random(using: &random) ? random.pick(app.firstParty) : random.pick(app.trackers)
            return EgressObservation(time: 1_800_000_000 + Int64(index), host: host, method: "GET", bytesOut: 120, bytesIn: 800,
                                     status: 200, blocked: false, sentData: false)
        }
        let policy = EgressPolicy()
        let rounds = 20
        let clock = ContinuousClock()
        let samples = try await sampler.collect(
            setUp: { () },
            body: { _ -> Double in
                var trackers = 0
                let elapsed = clock.measure {
                    for _ in 0..<rounds {
                        trackers += classifier.classify(observations, policy: policy).count { $0.isTracker }
                    }
                }
                guard trackers > 0 else { throw BenchError("no tracker among the classified hosts") }
                return elapsed.seconds / Double(rounds * observations.count)
            },
            tearDown: { _ in }
        )
        return FigureResult(name: "classification per request (EgressClassifier.classify, 1,000 observations)", unit: .nanoseconds,
                            seconds: samples)
    }
}
