/// One outbound request a compute function made through the escrow's network client, as the
/// client saw it: domain-level facts only. Never a path, a query, a header or a body.
///
/// The client that sends the request makes one (on the escrow host or on a compute server, which
/// reports its observations back with the response); the host classifies them (registrable
/// domain, tracker) and records them with the run's audit entry.
public struct EgressObservation: Sendable, Hashable {
    /// When the request was sent, in whole seconds since 1970 (UTC).
    public var time: Int64
    /// The host the request went to, normalized (`HostName`): lower case, ASCII, no trailing dot.
    public var host: String
    /// The HTTP method (`GET`, `POST`, …).
    public var method: String
    /// Bytes the request carried out: the URL, the header fields and the body.
    public var bytesOut: Int
    /// Bytes of the response body that came back (0 when none).
    public var bytesIn: Int
    /// The response's HTTP status; nil when there was no response (blocked, unreachable, timed out).
    public var status: Int?
    /// The escrow refused the request because the individual blocks its domain.
    public var blocked: Bool
    /// A value the function read from the individual's data appears verbatim in the URL or body.
    /// A hint when true, never a promise when false: hashed or encoded data is not seen.
    public var sentData: Bool

    public init(time: Int64, host: String, method: String, bytesOut: Int, bytesIn: Int, status: Int?,
                blocked: Bool, sentData: Bool) {
        self.time = time
        self.host = host
        self.method = method
        self.bytesOut = bytesOut
        self.bytesIn = bytesIn
        self.status = status
        self.blocked = blocked
        self.sentData = sentData
    }
}
