import Escrow
import EscrowCore
import EscrowDaemon
import EscrowEmbedded
import EscrowFunctions
import EscrowHost
import EscrowWire
import EscrowStore
import EscrowTestSupport
import Foundation
import Logging
import NIOPosix
import Testing

/// Hostile texts sent as app id, purpose, SQL and parameter through the daemon's socket (raw
/// requests that skip the SDK's own checks), the SDK, and the embedded escrow: each is refused
/// before a flow is recorded, with a message that is safe to print.
@Suite struct HostileRequestTextTests {
    let logger = Logger(label: "test")
    static let sql = "SELECT longitude, latitude FROM Location ORDER BY timestamp DESC LIMIT 1"

    enum Field: CaseIterable, Sendable {
        case app, purpose, parameter, sql
    }

    /// A raw run request with `hostile` in `field`, everything else valid.
    static func request(_ hostile: HostileText, in field: Field) -> Escrow_V1_RunRequest {
        var request = Escrow_V1_RunRequest()
        request.app = field == .app ? hostile.rawValue : "org.example.weather"
        request.purpose = field == .purpose ? hostile.rawValue : "Weather where you are"
        request.accessSql = field == .sql ? sql + " -- " + hostile.rawValue : sql
        request.functionID = "location.region"
        if field == .parameter { request.parameters = ["radius": hostile.rawValue] }
        return request
    }

    static func isClean(_ text: String) -> Bool {
        !text.unicodeScalars.contains { DisplayText.isUnsafe($0) }
    }

    /// Whether SQL carrying `hostile` in a comment is refused (controls and bidi overrides are;
    /// invisible characters in a comment are not, and a comment is never shown).
    static func sqlRefuses(_ hostile: HostileText) -> Bool {
        (try? RequestText.checkSQL(hostile.rawValue)) == nil
    }

    @Test(arguments: HostileText.allCases)
    func theDaemonRefusesRawRequestsBeforeRecordingAFlow(_ hostile: HostileText) async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let daemon = try HostDaemon(host: try EscrowHost(home: temporary.home, logger: logger), limits: .forTests, logger: logger)
            try await daemon.start()
            for field in Field.allCases {
                // A connection per request: the daemon closes one that stays silent (its first-request
                // and idle deadlines), which a loaded machine could otherwise reach between requests.
                let connection = try await ComputeConnection.connect(unixSocket: daemon.socketPath,
                                                                     group: MultiThreadedEventLoopGroup.singleton)
                defer { Task { await connection.close() } }
                do {
                    _ = try await connection.run(Self.request(hostile, in: field), deadline: .seconds(30))
                    Issue.record("\(field) \(hostile) was accepted")
                } catch RPCError.remote(let code, let message) {
                    #expect(code == .badRequest, "\(field): \(message)")
                    #expect(Self.isClean(message), "\(field): \(message.debugDescription)")
                } catch RPCError.decision(let code, _, _) where field == .sql && !Self.sqlRefuses(hostile) {
                    #expect(code == .awaitingApproval, "an invisible character in a comment is harmless")
                }
            }
            let recorded = try daemon.host.flows.list()
            #expect(recorded.allSatisfy { $0.app == "org.example.weather" && $0.purpose == "Weather where you are" })
            #expect(recorded.count == (Self.sqlRefuses(hostile) ? 0 : 1))
            #expect(try daemon.host.audit.entries().allSatisfy { Self.isClean($0.facts.app) && Self.isClean($0.facts.purpose) })
            await daemon.shutdown()
        }
    }

    @Test(arguments: HostileText.allCases)
    func theSDKRefusesHostileTextsAtTheCall(_ hostile: HostileText) async throws {
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            do throws(EscrowError) {
                _ = try Escrow.embedded(home: temporary.home.url, app: hostile.rawValue, logger: logger)
                Issue.record("embedded accepted the app id \(hostile)")
            } catch {
                guard case .invalidRequest(let message) = error else { throw error }
                #expect(Self.isClean(message))
            }
            do throws(EscrowError) {
                _ = try await Escrow.connect(app: hostile.rawValue, socket: temporary.home.url.appendingPathComponent("none.sock").path)
                Issue.record("connect accepted the app id \(hostile)")
            } catch {
                guard case .invalidRequest = error else { throw error }
            }
            let escrow = try Escrow.embedded(home: temporary.home.url, app: "org.example.weather", logger: logger)
            for (purpose, parameters) in [(hostile.rawValue, [String: String]()), ("Weather", ["radius": hostile.rawValue])] {
                do throws(EscrowError) {
                    _ = try await escrow.run(access: Self.sql, compute: LocationRegion.self, purpose: purpose,
                                             parameters: parameters)
                    Issue.record("the SDK accepted \(hostile)")
                } catch {
                    guard case .invalidRequest(let message) = error else { throw error }
                    #expect(Self.isClean(message), "\(message.debugDescription)")
                }
            }
            #expect(try EscrowHost(home: temporary.home, logger: logger).flows.list().isEmpty)
        }
    }
}
