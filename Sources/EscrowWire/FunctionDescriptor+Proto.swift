import EscrowCore
import SwiftProtobuf

// Conversion between `FunctionDescriptor` and its wire form, `Escrow_V1_FunctionInfo`, the entries
// of a compute server's `Catalog`.

extension Escrow_V1_FunctionInfo {
    /// The wire form of `descriptor`.
    ///
    /// Thread safety: a pure function of its argument.
    public init(_ descriptor: FunctionDescriptor) {
        self.init()
        id = descriptor.id
        version = Int64(descriptor.version)
        codeDigest = descriptor.codeDigest
        summary = descriptor.summary
    }
}

extension FunctionDescriptor {
    /// The descriptor a peer sent in its catalog, after checking it is usable.
    ///
    /// - Throws: `FunctionInfoDecodingError` when the id or the code digest is empty, or the version
    ///   is not positive.
    ///
    /// Thread safety: a pure function of its argument.
    public init(_ info: Escrow_V1_FunctionInfo) throws(FunctionInfoDecodingError) {
        guard !info.id.isEmpty else { throw FunctionInfoDecodingError(reason: .missingID) }
        guard info.version > 0 else {
            throw FunctionInfoDecodingError(reason: .badVersion(id: info.id, version: info.version))
        }
        guard !info.codeDigest.isEmpty else {
            throw FunctionInfoDecodingError(reason: .missingDigest(id: info.id))
        }
        self.init(id: info.id, version: Int(info.version), codeDigest: info.codeDigest, summary: info.summary)
    }
}

/// A catalog entry from a peer that cannot identify a function.
public struct FunctionInfoDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Reason: Sendable, Equatable {
        case missingID
        case badVersion(id: String, version: Int64)
        case missingDigest(id: String)
    }

    let reason: Reason

    public var description: String {
        switch reason {
        case .missingID: "invalid catalog entry: a function has no id"
        case .badVersion(let id, let version): "invalid catalog entry: function '\(id)' has version \(version); versions start at 1"
        case .missingDigest(let id): "invalid catalog entry: function '\(id)' has no code digest"
        }
    }
}
