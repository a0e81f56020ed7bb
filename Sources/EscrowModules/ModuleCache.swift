import Synchronization

/// Parsed, validated modules by digest, at most `capacity` of them; the least recently used one
/// goes first. Parsing and validating is the first-run cost of a module (docs/PERFORMANCE.md); a
/// cached module's run only instantiates it.
///
/// Thread safety: may be shared.
public final class ModuleCache: Sendable {
    public let capacity: Int
    private let state: Mutex<State>

    private struct State {
        var modules: [String: ComputeModule] = [:]
        /// Digests, least recently used first.
        var order: [String] = []
    }

    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
        state = Mutex(State())
    }

    /// The module with this digest, if cached (and now the most recently used).
    public func module(_ sha256: String) -> ComputeModule? {
        state.withLock { state in
            guard let module = state.modules[sha256] else { return nil }
            state.order.removeAll { $0 == sha256 }
            state.order.append(sha256)
            return module
        }
    }

    /// Keeps a module, dropping the least recently used one when full.
    public func insert(_ module: ComputeModule) {
        state.withLock { state in
            if state.modules.updateValue(module, forKey: module.sha256) != nil {
                state.order.removeAll { $0 == module.sha256 }
            }
            state.order.append(module.sha256)
            while state.order.count > capacity {
                state.modules[state.order.removeFirst()] = nil
            }
        }
    }

    /// The module with this digest: cached, else validated from `bytes()` (which must hash to it).
    ///
    /// - Throws: `ModuleError` from `bytes` or the validation; `.digestMismatch` when the bytes
    ///   are another module.
    public func module(_ sha256: String, bytes: () throws(ModuleError) -> [UInt8]) throws(ModuleError) -> ComputeModule {
        if let module = module(sha256) { return module }
        let data = try bytes()
        // Which bytes they are before what they are: bytes under another digest are that, whatever else.
        let actual = ComputeModule.sha256(of: data)
        guard actual == sha256 else { throw .digestMismatch(expected: sha256, actual: actual) }
        let module = try ComputeModule(bytes: data)
        insert(module)
        return module
    }

    /// How many modules are cached.
    public var count: Int { state.withLock { $0.modules.count } }
}
