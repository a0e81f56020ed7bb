import NIOCore
import Testing

@testable import EscrowWire

/// The instant a test connection was accepted.
private let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

/// `seconds` after `start`.
private func at(_ seconds: Int64) -> NIODeadline { start + .seconds(seconds) }

/// When a connection is closed for saying nothing in time (`ConnectionDeadlines`), checked at
/// chosen instants: no clock, no sockets. The end-to-end tests in `ComputeServerFloodTests` and
/// `DaemonProtocolErrorTests` cover the same rules through real processes and sockets.
struct ConnectionDeadlinesTests {
    private static let limits = ConnectionLimits(maximumConnections: 8, handshakeTimeout: .seconds(10),
                                                 firstRequestTimeout: .seconds(5), idleTimeout: .seconds(60))

    /// A moment in a connection's life, and what a check then must say.
    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let handshake: Bool
        /// Events before the check: (second, event).
        let events: [(Int64, Event)]
        let checkAt: Int64
        let expected: ConnectionDeadlines.Verdict

        enum Event: Sendable { case handshakeCompleted, request, callStarted, callFinished }
    }

    @Test(arguments: [
        Case(testDescription: "a silent TLS client within its handshake time", handshake: true, events: [], checkAt: 9,
             expected: .checkAgain(at: at(10))),
        Case(testDescription: "a silent TLS client at its handshake deadline", handshake: true, events: [], checkAt: 10,
             expected: .close(.handshake(.seconds(10)))),
        Case(testDescription: "the first-request time runs from the end of the handshake",
             handshake: true, events: [(9, .handshakeCompleted)], checkAt: 13, expected: .checkAgain(at: at(14))),
        Case(testDescription: "no first request within its time after the handshake", handshake: true,
             events: [(2, .handshakeCompleted)], checkAt: 7, expected: .close(.firstRequest(.seconds(5)))),
        Case(testDescription: "without TLS, the first-request time runs from connecting", handshake: false, events: [],
             checkAt: 5, expected: .close(.firstRequest(.seconds(5)))),
        Case(testDescription: "a handshake event without TLS changes nothing", handshake: false,
             events: [(4, .handshakeCompleted)], checkAt: 5, expected: .close(.firstRequest(.seconds(5)))),
        Case(testDescription: "an open connection is idle from its last request", handshake: true,
             events: [(1, .handshakeCompleted), (2, .request), (30, .request)], checkAt: 60, expected: .checkAgain(at: at(90))),
        Case(testDescription: "an open connection without requests is closed at its idle deadline", handshake: true,
             events: [(1, .handshakeCompleted), (2, .request)], checkAt: 62, expected: .close(.idle(.seconds(60)))),
        Case(testDescription: "a call in flight keeps a connection open past its idle time", handshake: false,
             events: [(1, .request), (1, .callStarted)], checkAt: 500, expected: .checkAgain(at: at(560))),
        Case(testDescription: "idle time counts again from the call's end", handshake: false,
             events: [(1, .request), (1, .callStarted), (400, .callFinished)], checkAt: 459, expected: .checkAgain(at: at(460))),
        Case(testDescription: "idle after the last call finished", handshake: false,
             events: [(1, .request), (1, .callStarted), (1, .callStarted), (100, .callFinished), (400, .callFinished)],
             checkAt: 460, expected: .close(.idle(.seconds(60)))),
        Case(testDescription: "one of two calls still running keeps it open", handshake: false,
             events: [(1, .request), (1, .callStarted), (1, .callStarted), (100, .callFinished)],
             checkAt: 460, expected: .checkAgain(at: at(520))),
    ])
    func aCheckSays(_ example: Case) {
        var deadlines = ConnectionDeadlines(limits: Self.limits, handshake: example.handshake, now: start)
        for (second, event) in example.events {
            switch event {
            case .handshakeCompleted: deadlines.handshakeCompleted(at: at(second))
            case .request: deadlines.requestReceived(at: at(second))
            case .callStarted: deadlines.callStarted()
            case .callFinished: deadlines.callFinished(at: at(second))
            }
        }
        #expect(deadlines.check(at: at(example.checkAt)) == example.expected)
    }

    @Test func overrunsSayWhatHappened() {
        #expect("\(ConnectionDeadlines.Overrun.handshake(.seconds(10)))" == "the TLS handshake did not finish within 10 s")
        #expect("\(ConnectionDeadlines.Overrun.firstRequest(.milliseconds(1500)))" == "no request within 1500 ms of connecting")
        #expect("\(ConnectionDeadlines.Overrun.idle(.seconds(300)))" == "idle for 300 s")
    }

    @Test func theDefaultMaximumIsUnderTheDescriptorLimit() {
        let maximum = ConnectionLimits.defaultMaximumConnections()
        #expect((16...4096).contains(maximum))
        #expect(ConnectionLimits(maximumConnections: 0).maximumConnections == 1)
    }
}
