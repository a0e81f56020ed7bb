import EscrowCore
import EscrowStore

/// What the escrow knows of one address of a compute server: nothing bad (`failures == 0`), or
/// how it has been failing and until when it is skipped.
public struct ServerAddressState: Sendable, Hashable {
    public let address: String
    /// Failures in a row (0: the address works, or was never tried).
    public let failures: Int
    /// When the latest failure happened (ISO 8601 UTC), nil when none is recorded.
    public let failedAt: String?
    /// Until when the address is skipped, in seconds since 1970 (nil when it is not).
    public let retryAt: Double?
    /// Why the latest attempt failed, in the escrow's words.
    public let lastError: String?

    public init(address: String, failures: Int = 0, failedAt: String? = nil, retryAt: Double? = nil, lastError: String? = nil) {
        self.address = address
        self.failures = failures
        self.failedAt = failedAt
        self.retryAt = retryAt
        self.lastError = lastError
    }

    /// Whether the address is being skipped at `now` (seconds since 1970).
    public func isBackingOff(at now: Double) -> Bool {
        guard let retryAt else { return false }
        return retryAt > now
    }

    /// How long an address is skipped after `failures` failures in a row: 1 s, doubling, at most
    /// 30 s. Short enough that a restarted replica is back in use within half a minute, long
    /// enough that a dead one costs the hosts one refused connection per period, not one per run.
    public static func backOff(afterFailures failures: Int) -> Double {
        min(30, Double(1 << min(max(failures - 1, 0), 5)))
    }
}

extension ServerRegistry {
    /// The state of each address of server `id`, in its registered order (addresses without a
    /// recorded failure are reported as working).
    ///
    /// - Throws: `ServerError.unknownServer`, or the store's error.
    public func states(of id: String) throws -> [ServerAddressState] {
        let record = try server(id)
        let recorded = try recordedStates(of: id)
        return record.addresses.map { recorded[$0] ?? ServerAddressState(address: $0) }
    }

    /// The failures recorded for server `id`'s addresses, by address.
    func recordedStates(of id: String) throws -> [String: ServerAddressState] {
        try state.read { database in
            let query = try database.cached("""
                SELECT address, failures, failedAt, retryAt, lastError FROM ServerAddressState WHERE serverId = ?
                """)
            defer { query.reset() }
            try query.bind(.text(id), at: 1)
            var states: [String: ServerAddressState] = [:]
            while try query.step() {
                let address = query.string(0) ?? ""
                states[address] = ServerAddressState(address: address, failures: Int(query.int64(1)), failedAt: query.string(2),
                                                     retryAt: query.string(3).flatMap { Timestamp.parse($0) },
                                                     lastError: query.string(4))
            }
            return states
        }
    }

    /// Records that `address` of server `id` failed (`error` says how) and returns its new state:
    /// one more failure in a row, skipped for the back-off that follows.
    @discardableResult
    func recordFailure(of id: String, address: String, error: String) throws -> ServerAddressState {
        try state.write { database in
            let current = try database.cached("SELECT failures FROM ServerAddressState WHERE serverId = ? AND address = ?")
            defer { current.reset() }
            try current.bind(.text(id), at: 1)
            try current.bind(.text(address), at: 2)
            let failures = (try current.step() ? Int(current.int64(0)) : 0) + 1
            let now = state.clock.now()
            let retryAt = now.seconds + ServerAddressState.backOff(afterFailures: failures)
            let bounded = String(error.prefix(500))
            try database.cached("""
                INSERT INTO ServerAddressState (serverId, address, failures, failedAt, retryAt, lastError) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(serverId, address) DO UPDATE SET failures = excluded.failures, failedAt = excluded.failedAt,
                    retryAt = excluded.retryAt, lastError = excluded.lastError
                """).run([.text(id), .text(address), .integer(Int64(failures)), .text(now.text),
                          .text(Timestamp.format(secondsSince1970: retryAt)), .text(bounded)])
            return ServerAddressState(address: address, failures: failures, failedAt: now.text, retryAt: retryAt, lastError: bounded)
        }
    }

    /// Records that `address` of server `id` works again (forgets its failures).
    func recordSuccess(of id: String, address: String) throws {
        try state.write { database in
            try database.cached("DELETE FROM ServerAddressState WHERE serverId = ? AND address = ?").run([.text(id), .text(address)])
        }
    }
}
