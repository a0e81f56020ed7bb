import EscrowCore
import EscrowModules
import EscrowWire

/// Which compute modules a compute server runs, and how (docs/COMPUTE-SERVER.md, "Modules"): the
/// digests its operator accepts, how many compiled modules it keeps, and the limits of one run.
public struct ServerModulePolicy: Sendable {
    /// The modules the operator accepts.
    public enum Acceptance: Sendable, Equatable {
        /// Any valid module (each still runs only in the sandbox, under the limits).
        case any
        /// None: calls of modules are refused with MODULE_REFUSED.
        case none
        /// Only these SHA-256 digests (lower-case hex).
        case only(Set<String>)
    }

    public var acceptance: Acceptance
    /// Compiled modules kept, the least recently used dropped first.
    public var cacheCapacity: Int
    public var limits: ModuleLimits

    public init(acceptance: Acceptance = .any, cacheCapacity: Int = 64, limits: ModuleLimits = .default) {
        self.acceptance = acceptance
        self.cacheCapacity = cacheCapacity
        self.limits = limits
    }

    /// Whether the operator accepts the module with this digest.
    func accepts(_ sha256: String) -> Bool {
        switch acceptance {
        case .any: true
        case .none: false
        case .only(let digests): digests.contains(sha256)
        }
    }
}

/// The modules a running server keeps, and the checks of a call that names one.
final class ServerModules: Sendable {
    let policy: ServerModulePolicy
    let cache: ModuleCache

    init(policy: ServerModulePolicy) {
        self.policy = policy
        cache = ModuleCache(capacity: policy.cacheCapacity)
    }

    /// A call's refusal: its error code and message.
    struct Refusal: Error {
        let code: Escrow_V1_Error.Code
        let message: String
    }

    /// The cheap checks of a call of a module, on the event loop: its digest, whether the operator
    /// accepts it, and whether the server has it or the call carries it.
    ///
    /// - Returns: the bytes to check, when the module is not cached yet.
    func admit(_ request: Escrow_V1_ComputeRequest) -> Result<[UInt8]?, Refusal> {
        let digest = request.moduleSha256
        guard digest.utf8.count == 64, digest.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else {
            return .failure(Refusal(code: .badRequest, message: "module_sha256 must be 64 lower-case hex digits"))
        }
        guard request.codeDigest == digest else {
            return .failure(Refusal(code: .badRequest, message: "code_digest must equal module_sha256 for a module"))
        }
        guard policy.accepts(digest) else {
            return .failure(Refusal(code: .moduleRefused, message: policy.acceptance == .none
                ? "this server's operator runs no compute modules"
                : "this server's operator does not accept module \(digest); ask them to add it to the server's allowed modules"))
        }
        if cache.module(digest) != nil { return .success(nil) }
        guard !request.module.isEmpty else {
            return .failure(Refusal(code: .moduleNeeded, message: "this server does not have module \(digest); send it with the call"))
        }
        return .success([UInt8](request.module))
    }

    /// The module a call names, checked against what the call says it is. With `bytes`, a
    /// module's first check parses, validates and compiles it: call it off the event loop and off
    /// the cooperative pool (`ModuleSandbox.offPool`).
    func module(_ request: Escrow_V1_ComputeRequest, bytes: [UInt8]?) -> Result<ComputeModule, Refusal> {
        let digest = request.moduleSha256
        let module: ComputeModule
        do {
            module = try cache.module(digest) { () throws(ModuleError) in
                guard let bytes else { throw .unknownModule(digest) }
                return bytes
            }
        } catch {
            switch error {
            case .digestMismatch: return .failure(Refusal(code: .digestMismatch, message: error.description))
            case .unknownModule: return .failure(Refusal(code: .moduleNeeded, message: "this server no longer has module \(digest); send it with the call"))
            default: return .failure(Refusal(code: .invalidModule, message: error.description))
            }
        }
        guard module.manifest.id == request.functionID, Int64(module.manifest.version) == request.functionVersion else {
            return .failure(Refusal(code: .digestMismatch, message: "module \(digest.prefix(12))… is \(module.manifest.id)@\(module.manifest.version), "
                + "not \(DisplayText.escaped(request.functionID))@\(request.functionVersion) as the call says"))
        }
        return .success(module)
    }
}
