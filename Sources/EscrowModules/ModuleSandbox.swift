import Dispatch
import EscrowCore
import EscrowWire
import Foundation
import Synchronization
@_spi(Fuzzing) import WasmKit

/// Runs compute modules: a fresh WebAssembly instance per run, in WasmKit's interpreter, with the
/// escrow's functions as its only imports and `ModuleLimits` on instructions (fuel), memory and
/// wall time.
///
/// A run executes on a thread of its own (the interpreter and its network waits block), never on
/// Swift's cooperative pool (`ModuleThreads`). A run past its wall time is answered at once with
/// `ModuleRunError.wallTime`; its thread then stops at the module's next call to the escrow, or
/// when its fuel is spent.
///
/// Thread safety: may be shared; runs are independent.
public final class ModuleSandbox: Sendable {
    /// The sandbox a process's runs share (one interpreter configuration).
    public static let shared = ModuleSandbox()

    private let engine: Engine
    private let threads = ModuleThreads(maximum: 64)
    private let instances = InstancePool()

    public init() {
        engine = Engine(configuration: EngineConfiguration(fuelMetering: true))
    }

    /// Runs the module's `escrow_run` over `input`.
    ///
    /// - Parameters:
    ///   - context: the run's parameters (checked against the manifest's declarations) and the
    ///     network client `http_send` goes through (nil: `http_send` answers "no network").
    ///   - log: receives each line the module logs (escaped, bounded).
    /// - Throws: `ComputeError.invalidParameter`, `FrameError` for an input that does not fit the
    ///   manifest's inputs, `ModuleRunError` for a run that produced no valid output.
    public func run(_ module: ComputeModule, input: Frame, context: ComputeContext, limits: ModuleLimits = .default,
                    log: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Frame {
        try ParameterDeclaration.check(context.parameters, against: module.manifest.parameters)
        try module.manifest.inputs.check(input)
        let run = ModuleRun(module: module, input: input.encoded, context: context, limits: limits, log: log)
        let engine = self.engine
        let threads = self.threads
        let instances = self.instances
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Frame, any Error>) in
            let answer = AnswerOnce(continuation)
            threads.submit {
                let restored = instances.take(module.sha256)
                answer.give(Result { try run.execute(engine: engine, restored: restored, pool: instances) })
            }
            let limit = limits.wallTime
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Self.nanoseconds(limit))) {
                if answer.give(.failure(ModuleRunError.wallTime(limit: limit))) { run.abandon() }
            }
        }
    }

    /// Runs `work` on the sandbox's threads: for work that holds a thread for long (checking a
    /// large module parses and compiles it), which must not hold one of Swift's cooperative pool.
    public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let threads = self.threads
        return try await withCheckedThrowingContinuation { continuation in
            threads.submit { continuation.resume(with: Result { try work() }) }
        }
    }

    /// A duration in whole milliseconds.
    public static func milliseconds(_ duration: Duration) -> Int {
        nanoseconds(duration) / 1_000_000
    }

    static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(min(seconds, 86_400 * 365)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}

/// Resumes a continuation with the first result given, ignoring later ones.
private final class AnswerOnce: Sendable {
    private let continuation: Mutex<CheckedContinuation<Frame, any Error>?>

    init(_ continuation: CheckedContinuation<Frame, any Error>) { self.continuation = Mutex(continuation) }

    /// - Returns: whether this result was the one given.
    @discardableResult
    func give(_ result: Result<Frame, any Error>) -> Bool {
        guard let continuation = self.continuation.withLock({ held in defer { held = nil }; return held }) else { return false }
        continuation.resume(with: result)
        return true
    }
}

/// What an instance's escrow functions act on: the one run it serves, bound when the run takes it.
final class RunBinding: @unchecked Sendable {
    /// Set once, on the run's thread, before `escrow_run` is called.
    var run: ModuleRun?
}

/// An instance of a module in the state instantiation left it in: made now, or restored after a
/// run (its memory's bytes and its mutable globals put back, `snapshot`). Restoring keeps the
/// functions WasmKit compiled for it, which a new instance would compile again.
struct ReadyInstance: @unchecked Sendable {
    let store: Store
    let instance: Instance
    let binding: RunBinding
    let memory: Memory
    /// The memory's bytes and the mutable globals' values right after instantiation.
    let snapshot: [UInt8]
    let globals: [(Global, Value)]

    /// Instantiates `module` with its escrow functions bound to the run `binding` will hold.
    static func make(_ module: ComputeModule, engine: Engine, fuel: UInt64, limiter: MemoryLimiter) throws -> ReadyInstance {
        let store = Store(engine: engine)
        // A start function, should the module have one, runs now, on the run's budget.
        store.fuel = Fuel(remaining: fuel)
        store.resourceLimiter = limiter
        let binding = RunBinding()
        let instance = try module.parsed.instantiate(store: store, imports: ModuleRun.imports(store, binding: binding))
        guard let memory = instance.exports[memory: ModuleABI.memory] else {
            throw ModuleRunError.badCall(function: ModuleABI.entryPoint, reason: "the module exports no memory")
        }
        var snapshot: [UInt8] = []
        var globals: [(Global, Value)] = []
        if module.reusable {
            snapshot = memory.byteCount == 0 ? [] : memory.withUnsafeBufferPointer(offset: 0, count: memory.byteCount) { Array($0) }
            globals = module.globalExports.compactMap { name in instance.exports[global: name].map { ($0, $0.value) } }
        }
        return ReadyInstance(store: store, instance: instance, binding: binding, memory: memory, snapshot: snapshot, globals: globals)
    }

    /// Puts the instance back in its state after instantiation; false when it cannot be (its
    /// memory grew: a memory does not shrink).
    func restore() -> Bool {
        guard memory.byteCount == snapshot.count else { return false }
        if !snapshot.isEmpty {
            memory.withUnsafeMutableBufferPointer(offset: 0, count: snapshot.count) { $0.copyBytes(from: snapshot) }
        }
        for (global, value) in globals {
            do { try global.assign(value) } catch { return false }
        }
        binding.run = nil
        return true
    }
}

/// Restored instances, a few for each of the modules run most recently, each serving one run at
/// a time.
final class InstancePool: Sendable {
    static let perModule = 4
    static let modules = 16
    private let state = Mutex<(instances: [String: [ReadyInstance]], order: [String])>(([:], []))

    func take(_ sha256: String) -> ReadyInstance? {
        state.withLock { state in
            state.order.removeAll { $0 == sha256 }
            state.order.append(sha256)
            return state.instances[sha256]?.popLast()
        }
    }

    func put(_ instance: ReadyInstance, for sha256: String) {
        state.withLock { state in
            guard (state.instances[sha256]?.count ?? 0) < Self.perModule else { return }
            state.instances[sha256, default: []].append(instance)
            if !state.order.contains(sha256) { state.order.append(sha256) }
            while state.order.count > Self.modules {
                state.instances[state.order.removeFirst()] = nil
            }
        }
    }
}

/// One run's state: what the escrow's functions read and write. Touched only by the run's thread,
/// but for `abandoned`.
final class ModuleRun: @unchecked Sendable {
    let module: ComputeModule
    let input: [UInt8]
    let context: ComputeContext
    let limits: ModuleLimits
    let log: @Sendable (String) -> Void
    let abandoned = Atomic<Bool>(false)
    var output: [UInt8]?
    var response: [UInt8] = []
    var requests = 0
    var logLines = 0

    init(module: ComputeModule, input: [UInt8], context: ComputeContext, limits: ModuleLimits,
         log: @escaping @Sendable (String) -> Void) {
        self.module = module
        self.input = input
        self.context = context
        self.limits = limits
        self.log = log
    }

    /// The caller stopped waiting: every later call to the escrow stops the run.
    func abandon() { abandoned.store(true, ordering: .relaxed) }

    /// Runs `escrow_run` in `restored` (when it fits this run's memory limit) or in an instance
    /// made now; then, when the module allows it and the run ended on its own, restores the
    /// instance into `pool` for a later run.
    func execute(engine: Engine, restored: ReadyInstance?, pool: InstancePool) throws -> Frame {
        let limiter = MemoryLimiter(limit: limits.memoryBytes)
        let code: Int32
        var used: ReadyInstance?
        defer {
            if let used, module.reusable, !abandoned.load(ordering: .relaxed), used.restore() {
                pool.put(used, for: module.sha256)
            }
        }
        do {
            let ready: ReadyInstance
            if let restored, restored.memory.byteCount <= limits.memoryBytes {
                ready = restored
                ready.store.fuel = Fuel(remaining: limits.fuel)
                ready.store.resourceLimiter = limiter
            } else {
                ready = try ReadyInstance.make(module, engine: engine, fuel: limits.fuel, limiter: limiter)
            }
            ready.binding.run = self
            used = ready
            let instance = ready.instance
            guard let entry = instance.exports[function: ModuleABI.entryPoint] else {
                throw ModuleRunError.badCall(function: ModuleABI.entryPoint, reason: "it is not exported")
            }
            guard case .i32(let result)? = try entry.invoke([]).first else {
                throw ModuleRunError.badCall(function: ModuleABI.entryPoint, reason: "it returned no i32")
            }
            code = Int32(bitPattern: result)
        } catch {
            throw classify(error, limiter: limiter)
        }
        guard code == 0 else { throw limited(limiter) ?? ModuleRunError.returned(code) }
        guard let output else { throw limited(limiter) ?? ModuleRunError.noOutput }
        do {
            return try Frame(encoded: output)
        } catch {
            throw ModuleRunError.badOutput(error.description)
        }
    }

    /// The memory limit, when the module was refused memory (and then failed, whatever way).
    private func limited(_ limiter: MemoryLimiter) -> ModuleRunError? {
        limiter.refused.map { .memoryLimit(limit: limits.memoryBytes, asked: $0) }
    }

    private func classify(_ error: any Error, limiter: MemoryLimiter) -> any Error {
        if abandoned.load(ordering: .relaxed) { return ModuleRunError.wallTime(limit: limits.wallTime) }
        if let limited = limited(limiter) { return limited }
        if let error = error as? ModuleRunError { return error }
        let words = ComputeModule.words(error)
        if words == "out of fuel" { return ModuleRunError.outOfFuel(limit: limits.fuel) }
        if words.hasPrefix("initial memory size exceeds the resource limit") {
            return ModuleRunError.memoryLimit(limit: limits.memoryBytes, asked: Int(words.split(separator: " ").dropLast().last ?? "") ?? 0)
        }
        return ModuleRunError.trapped(words)
    }

    // MARK: The escrow's functions

    /// The escrow's functions for an instance in `store`, acting on the run `binding` holds.
    static func imports(_ store: Store, binding: RunBinding) -> Imports {
        var imports = Imports()
        func define(_ name: String, _ body: @escaping (ModuleRun, borrowing Caller, [UInt32]) throws -> UInt32?) {
            guard let offered = ModuleABI.imports[name] else { return }
            imports.define(module: ModuleABI.importModule, name: name, Function(
                store: store, parameters: Array(repeating: .i32, count: offered.parameters),
                results: Array(repeating: .i32, count: offered.results)
            ) { caller, arguments in
                guard let run = binding.run else {
                    throw ModuleRunError.badCall(function: name, reason: "it was called before \(ModuleABI.entryPoint), by a start function")
                }
                if run.abandoned.load(ordering: .relaxed) { throw ModuleRunError.wallTime(limit: run.limits.wallTime) }
                let values = arguments.map { (value: Value) -> UInt32 in
                    switch value {
                    case .i32(let value): value
                    default: 0
                    }
                }
                return try body(run, caller, values).map { [.i32($0)] } ?? []
            })
        }
        define("input_size") { run, _, _ in UInt32(run.input.count) }
        define("input_read") { run, caller, arguments in
            try run.write(run.input, to: arguments[0], caller, "input_read")
            return nil
        }
        define("output_write") { run, caller, arguments in
            guard arguments[1] <= ModuleLimits.maximumOutputBytes else {
                throw ModuleRunError.badCall(function: "output_write", reason: "an output of \(arguments[1]) bytes is over the limit of \(ModuleLimits.maximumOutputBytes)")
            }
            run.output = try run.read(arguments[0], arguments[1], caller, "output_write")
            return nil
        }
        define("parameter_size") { run, caller, arguments in
            let name = try run.text(arguments[0], arguments[1], caller, "parameter_size")
            guard let value = run.context.parameters[name] else { return UInt32(bitPattern: -1) }
            return UInt32(value.utf8.count)
        }
        define("parameter_read") { run, caller, arguments in
            let name = try run.text(arguments[0], arguments[1], caller, "parameter_read")
            guard let value = run.context.parameters[name] else {
                throw ModuleRunError.badCall(function: "parameter_read", reason: "the run has no parameter \"\(DisplayText.escaped(name))\" (parameter_size said -1)")
            }
            try run.write(Array(value.utf8), to: arguments[2], caller, "parameter_read")
            return nil
        }
        define("http_send") { run, caller, arguments in
            let status = try run.send(arguments, caller)
            return UInt32(bitPattern: status)
        }
        define("http_response_size") { run, _, _ in UInt32(run.response.count) }
        define("http_response_read") { run, caller, arguments in
            try run.write(run.response, to: arguments[0], caller, "http_response_read")
            return nil
        }
        define("log") { run, caller, arguments in
            run.logLines += 1
            guard run.logLines <= ModuleLimits.maximumLogLines else { return nil }
            let length = min(arguments[1], UInt32(ModuleLimits.maximumLogLineBytes))
            let bytes = try run.read(arguments[0], length, caller, "log")
            run.log(DisplayText.escaped(String(decoding: bytes, as: UTF8.self)))
            return nil
        }
        define("random") { run, caller, arguments in
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<Int(min(arguments[1], 1 << 20))).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            try run.write(bytes, to: arguments[0], caller, "random")
            return nil
        }
        define("fail") { run, caller, arguments in
            let bytes = try run.read(arguments[0], min(arguments[1], 1000), caller, "fail")
            let message = DisplayText.escaped(String(decoding: bytes, as: UTF8.self))
            throw ModuleRunError.failed(message.isEmpty ? "(no reason given)" : message)
        }
        return imports
    }

    /// `http_send(method, method_len, url, url_len, headers, headers_len, body, body_len)`:
    /// the status, or a `ModuleABI.SendFailure`; the response body (or the failure in words) is
    /// then what `http_response_read` copies.
    func send(_ arguments: [UInt32], _ caller: borrowing Caller) throws -> Int32 {
        let method = try text(arguments[0], arguments[1], caller, "http_send")
        let url = try text(arguments[2], arguments[3], caller, "http_send")
        let headerText = try text(arguments[4], arguments[5], caller, "http_send")
        let body = try read(arguments[6], arguments[7], caller, "http_send")
        func failure(_ kind: ModuleABI.SendFailure, _ words: String) -> Int32 {
            response = Array(words.utf8)
            return kind.rawValue
        }
        guard let network = context.network else {
            return failure(.noNetwork, ComputeError.networkUnavailable.description)
        }
        guard !method.isEmpty, method.utf8.count <= 16, method.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
            return failure(.badRequest, "the method must be 1 to 16 upper-case letters, such as GET")
        }
        var headers: [String: String] = [:]
        for line in headerText.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), line.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                return failure(.badRequest, "a header line is not \"Name: value\" in printable ASCII")
            }
            headers[String(line[..<colon]).trimmingCharacters(in: .whitespaces)] = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        requests += 1
        guard requests <= limits.requests else {
            return failure(.tooManyRequests, ComputeError.tooManyRequests(limit: limits.requests).description)
        }
        let request = NetworkRequest(method: method, url: url, headers: headers, body: body)
        let outcome = Mutex<Result<NetworkResponse, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: ModuleNetworkExecutor.shared) {
            let result: Result<NetworkResponse, any Error>
            do { result = .success(try await network.send(request)) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        // The wall-time limit answers the caller; this wait only keeps the thread from hanging on.
        guard done.wait(timeout: .now() + .nanoseconds(ModuleSandbox.nanoseconds(limits.wallTime))) == .success,
              let result = outcome.withLock({ $0 }) else {
            throw ModuleRunError.wallTime(limit: limits.wallTime)
        }
        switch result {
        case .success(let answer):
            response = answer.body
            return Int32(clamping: answer.status)
        case .failure(let error as ComputeError):
            if case .blocked = error { return failure(.blocked, error.description) }
            if case .tooManyRequests = error { return failure(.tooManyRequests, error.description) }
            if case .invalidParameter = error { return failure(.badRequest, error.description) }
            return failure(.unreachable, error.description)
        case .failure(let error):
            return failure(.unreachable, "\(error)")
        }
    }

    // MARK: Memory

    func memory(_ caller: borrowing Caller, _ function: String) throws -> Memory {
        guard let memory = caller.instance?.exports[memory: ModuleABI.memory] else {
            throw ModuleRunError.badCall(function: function, reason: "the module exports no memory")
        }
        return memory
    }

    func checked(_ memory: Memory, _ pointer: UInt32, _ count: Int, _ function: String) throws -> UInt {
        let end = Int(pointer) + count
        guard end <= memory.byteCount else {
            throw ModuleRunError.badCall(function: function, reason: "the range \(pointer)..<\(end) lies outside its \(memory.byteCount)-byte memory")
        }
        return UInt(pointer)
    }

    func read(_ pointer: UInt32, _ count: UInt32, _ caller: borrowing Caller, _ function: String) throws -> [UInt8] {
        guard count > 0 else { return [] }
        let memory = try memory(caller, function)
        let offset = try checked(memory, pointer, Int(count), function)
        return memory.withUnsafeBufferPointer(offset: offset, count: Int(count)) { Array($0) }
    }

    func text(_ pointer: UInt32, _ count: UInt32, _ caller: borrowing Caller, _ function: String) throws -> String {
        let bytes = try read(pointer, count, caller, function)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ModuleRunError.badCall(function: function, reason: "a text it passed is not UTF-8")
        }
        return text
    }

    func write(_ bytes: [UInt8], to pointer: UInt32, _ caller: borrowing Caller, _ function: String) throws {
        guard !bytes.isEmpty else { return }
        let memory = try memory(caller, function)
        let offset = try checked(memory, pointer, bytes.count, function)
        memory.withUnsafeMutableBufferPointer(offset: offset, count: bytes.count) { $0.copyBytes(from: bytes) }
    }
}
