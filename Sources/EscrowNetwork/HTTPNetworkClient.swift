import EscrowCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The escrow's network client for compute functions: plain HTTP(S) through URLSession (libcurl
/// on Linux), with a per-request timeout. The escrow host and the compute server each hand one to
/// the functions they run; this is the one place outbound traffic of compute code goes through.
public struct HTTPNetworkClient: NetworkClient {
    private let timeout: TimeInterval

    public init(timeout: Duration = .seconds(10)) {
        self.timeout = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    }

    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ComputeError.serviceFailed("'\(request.url)' is not an http(s) URL")
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        do {
            let (data, response) = try await URLSession.shared.data(for: urlRequest)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            return NetworkResponse(status: status, body: [UInt8](data))
        } catch {
            throw ComputeError.serviceFailed("\(url.host ?? request.url): \(error.localizedDescription)")
        }
    }
}
