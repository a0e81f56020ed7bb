import Crypto
import EscrowCore
import Foundation
@_spi(Fuzzing) import WasmKit
import WasmParser

/// A compute module the escrow accepted: a WebAssembly binary, identified by the SHA-256 of its
/// bytes, whose imports are the escrow's own functions only, and whose manifest is well formed.
///
/// Parsed once (`init(bytes:)` validates every function body); each run instantiates it afresh
/// (`ModuleSandbox`), so nothing survives a call.
public struct ComputeModule: Sendable {
    /// Lower-case hex SHA-256 of the bytes: the module's identity, which a flow binds.
    public let sha256: String
    public let bytes: [UInt8]
    public let manifest: ModuleManifest
    /// What its imports let it do, in `ModuleCapability` order.
    public let capabilities: [ModuleCapability]
    /// The escrow functions it imports, sorted.
    public let imports: [String]
    /// What runs: the module with its mutable globals exported for the escrow (`ModuleImage`).
    let parsed: WasmKit.Module
    /// Whether an instance, restored, may serve another run (`ModuleImage.reusable`).
    let reusable: Bool
    /// The export names of its mutable globals, which a restore resets.
    let globalExports: [String]

    /// Checks a module: valid WebAssembly, only the escrow's imports with their signatures, the
    /// exports the escrow calls, and a manifest.
    ///
    /// - Throws: `ModuleError` naming the first problem.
    public init(bytes: [UInt8]) throws(ModuleError) {
        guard bytes.count <= ModuleLimits.maximumModuleBytes else {
            throw .tooLarge(bytes: bytes.count, limit: ModuleLimits.maximumModuleBytes)
        }
        let parsed: WasmKit.Module
        do {
            parsed = try parseWasm(bytes: bytes)
        } catch {
            throw .notWebAssembly(Self.words(error))
        }
        var imports: [String] = []
        for item in parsed.imports {
            guard item.module == ModuleABI.importModule, let offered = ModuleABI.imports[item.name] else {
                throw .unknownImport(module: item.module, name: item.name)
            }
            let expected = FunctionType(parameters: Array(repeating: .i32, count: offered.parameters),
                                        results: Array(repeating: .i32, count: offered.results))
            guard case .function(let typeIndex) = item.descriptor, parsed.functionType(at: typeIndex) == expected else {
                throw .wrongImport(name: item.name, expected: Self.signature(expected))
            }
            if !imports.contains(item.name) { imports.append(item.name) }
        }
        let entry = FunctionType(parameters: [], results: [.i32])
        guard parsed.exports.contains(where: { $0.name == ModuleABI.entryPoint && { if case .function = $0.descriptor { true } else { false } }($0) }) else {
            throw .missingExport(name: ModuleABI.entryPoint, expected: "a function \(Self.signature(entry))")
        }
        guard parsed.exports.contains(where: { $0.name == ModuleABI.memory && { if case .memory = $0.descriptor { true } else { false } }($0) }) else {
            throw .missingExport(name: ModuleABI.memory, expected: "its linear memory")
        }
        let sections = parsed.customSections.filter { $0.name == ModuleABI.manifestSection }
        guard let section = sections.first else { throw .missingManifest }
        guard sections.count == 1 else { throw .badManifest("the module has \(sections.count) \"\(ModuleABI.manifestSection)\" sections; keep one") }
        let manifest = try ModuleManifest(json: Array(section.bytes))
        // Every function body is validated and translated once here, so a module that is not
        // valid WebAssembly is refused when it is added, not when it first runs.
        try Self.validate(parsed, entry: entry)
        let image: ModuleImage
        let runnable: WasmKit.Module
        do {
            image = try ModuleImage(bytes)
            runnable = image.reusable ? try parseWasm(bytes: image.bytes) : parsed
        } catch {
            throw .notWebAssembly(Self.words(error))
        }
        self.sha256 = Self.sha256(of: bytes)
        self.bytes = bytes
        self.manifest = manifest
        self.imports = imports.sorted()
        self.capabilities = Set(imports.compactMap { ModuleABI.imports[$0]?.capability }).sorted()
        self.parsed = runnable
        self.reusable = image.reusable
        self.globalExports = image.globalExports
    }

    /// How the individual sees the module's identity in a flow: its id, version, digest, summary.
    public var descriptor: FunctionDescriptor {
        FunctionDescriptor(id: manifest.id, version: manifest.version, codeDigest: sha256, summary: manifest.summary)
    }

    /// Whether it can send requests to services.
    public var contactsNetwork: Bool { capabilities.contains(.network) }

    /// What the module can do, in plain words, read from its imports rather than its claims.
    public var abilities: String { Self.abilities(capabilities) }

    /// `abilities` for a set of capabilities.
    public static func abilities(_ capabilities: [ModuleCapability]) -> String {
        var parts: [String] = []
        if capabilities.contains(.network) {
            parts.append("may send requests to services on the network, only through the escrow, which records each one and refuses blocked domains")
        } else {
            parts.append("cannot contact anything; only its output reaches the app")
        }
        if capabilities.contains(.log) { parts.append("may write lines to this escrow's own log") }
        if capabilities.contains(.randomness) { parts.append("may use random numbers the escrow hands it") }
        return parts.joined(separator: "; ")
    }

    private static func validate(_ module: WasmKit.Module, entry: FunctionType) throws(ModuleError) {
        let engine = Engine(configuration: EngineConfiguration(compilationMode: .eager, fuelMetering: true))
        let store = Store(engine: engine)
        // A start function, should there be one, runs at instantiation: bound it.
        store.fuel = Fuel(remaining: 10_000_000)
        store.resourceLimiter = MemoryLimiter(limit: ModuleLimits.default.memoryBytes)
        var imports = Imports()
        for (name, offered) in ModuleABI.imports {
            imports.define(module: ModuleABI.importModule, name: name, Function(
                store: store, parameters: Array(repeating: .i32, count: offered.parameters),
                results: Array(repeating: .i32, count: offered.results)
            ) { _, _ in throw ModuleError.notWebAssembly("its start function calls the escrow; only \(ModuleABI.entryPoint) may") })
        }
        do {
            let instance = try module.instantiate(store: store, imports: imports)
            guard let run = instance.exports[function: ModuleABI.entryPoint], run.type == entry else {
                throw ModuleError.missingExport(name: ModuleABI.entryPoint, expected: "a function \(signature(entry))")
            }
        } catch let error as ModuleError {
            throw error
        } catch {
            throw .notWebAssembly(words(error))
        }
    }

    /// The lower-case hex SHA-256 of `bytes`: a module's identity.
    public static func sha256(of bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// Lower-case hex of a digest.
    public static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `(i32, i32) -> i32`.
    static func signature(_ type: FunctionType) -> String {
        "(\(type.parameters.map { "\($0)" }.joined(separator: ", "))) -> \(type.results.isEmpty ? "()" : type.results.map { "\($0)" }.joined(separator: ", "))"
    }

    /// A WasmKit error in one line of plain words.
    static func words(_ error: any Error) -> String {
        var text = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
        // WasmKit describes a parse error as its message value: `"Message(text: "…")" at offset 0x4`.
        if let start = text.range(of: "Message(text: \""), let end = text.range(of: "\")", range: start.upperBound..<text.endIndex) {
            let offset = text[end.upperBound...].range(of: "at offset ").map { " (at byte \(text[$0.upperBound...]))" } ?? ""
            text = String(text[start.upperBound..<end.lowerBound]) + offset
        }
        text = text.replacingOccurrences(of: "expected [0, 97, 115, 109]", with: "expected \"\\0asm\"")
        let trimmed = text.hasPrefix("Trap: ") ? String(text.dropFirst(6)) : text
        return DisplayText.escaped(trimmed.count > 300 ? String(trimmed.prefix(300)) + "…" : trimmed)
    }
}

/// Refuses memory growth past a limit, and remembers the largest refused request.
final class MemoryLimiter: ResourceLimiter, @unchecked Sendable {
    let limit: Int
    /// Written and read on the run's thread only.
    private(set) var refused: Int?

    init(limit: Int) { self.limit = limit }

    func limitMemoryGrowth(to desired: Int) throws -> Bool {
        guard desired <= limit else {
            refused = max(refused ?? 0, desired)
            return false
        }
        return true
    }

    func limitTableGrowth(to desired: Int) throws -> Bool { desired <= 1_000_000 }
}

/// Modules are the same module when their bytes are: compared and hashed by digest.
extension ComputeModule: Hashable {
    public static func == (lhs: ComputeModule, rhs: ComputeModule) -> Bool { lhs.sha256 == rhs.sha256 }
    public func hash(into hasher: inout Hasher) { hasher.combine(sha256) }
}
