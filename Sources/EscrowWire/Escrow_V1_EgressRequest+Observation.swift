import EscrowCore

extension Escrow_V1_EgressRequest {
    /// The most requests one call's report may hold; a receiver ignores those beyond.
    public static let maximumPerCall = 10_000

    /// The message of an observation.
    public init(_ observation: EgressObservation) {
        self.init()
        time = observation.time
        host = observation.host
        method = observation.method
        bytesOut = UInt64(max(0, observation.bytesOut))
        bytesIn = UInt64(max(0, observation.bytesIn))
        status = UInt32(clamping: observation.status ?? 0)
        blocked = observation.blocked
        sentData = observation.sentData
    }

    /// The observation this message reports; nil when a field is out of its bounds (a host over
    /// 253 bytes or empty, a method over 16 bytes, a status that is no HTTP status).
    public var observation: EgressObservation? {
        guard !host.isEmpty, host.utf8.count <= 253, !method.isEmpty, method.utf8.count <= 16,
              status == 0 || (100...999).contains(status),
              bytesOut <= UInt64(Int.max), bytesIn <= UInt64(Int.max) else { return nil }
        return EgressObservation(time: time, host: host, method: method, bytesOut: Int(bytesOut), bytesIn: Int(bytesIn),
                                 status: status == 0 ? nil : Int(status), blocked: blocked, sentData: sentData)
    }

    /// The observations of a report, those out of bounds and beyond `maximumPerCall` left out.
    public static func observations(_ messages: [Escrow_V1_EgressRequest]) -> [EgressObservation] {
        messages.prefix(maximumPerCall).compactMap(\.observation)
    }
}
