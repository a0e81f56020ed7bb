/// An outbound HTTP request a compute function makes through the escrow.
public struct NetworkRequest: Sendable, Hashable {
    public var method: String
    /// `http://` or `https://` URL.
    public var url: String
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String = "GET", url: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The answer to a `NetworkRequest`.
public struct NetworkResponse: Sendable, Hashable {
    public let status: Int
    public let body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// The only way a compute function reaches the network: the escrow hands one to it in its
/// `ComputeContext`, so every destination can be seen (and, later, recorded and filtered).
/// Functions never open sockets themselves.
public protocol NetworkClient: Sendable {
    /// Sends the request and returns the response (any status).
    ///
    /// - Throws: when the destination cannot be reached.
    func send(_ request: NetworkRequest) async throws -> NetworkResponse
}
