import EscrowCore
import EscrowWire

/// A module the escrow refuses to keep or run, found when it is added (by the individual, with a
/// run request, or on a compute server): what is wrong, and what the author can do.
public enum ModuleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a WebAssembly binary, or not a valid one.
    case notWebAssembly(String)
    /// Larger than the escrow keeps.
    case tooLarge(bytes: Int, limit: Int)
    /// It imports something the escrow does not offer (WASI, a clock, a file, another module).
    case unknownImport(module: String, name: String)
    /// It imports an escrow function under the wrong signature, or a non-function under its name.
    case wrongImport(name: String, expected: String)
    /// It lacks `escrow_run` or `memory`, or exports one of them with the wrong type.
    case missingExport(name: String, expected: String)
    /// It has no `escrow.module` custom section.
    case missingManifest
    /// Its manifest is not what docs/MODULES.md describes.
    case badManifest(String)
    /// Its id is the id of a function built into the escrow: it would pass for that function.
    case reservedID(String)
    /// No module with this digest (or id) is in the escrow home.
    case unknownModule(String)
    /// Several modules match an id or digest prefix.
    case ambiguousModule(String, matches: [String])
    /// The bytes' SHA-256 is not the digest they were sent under.
    case digestMismatch(expected: String, actual: String)
    /// The escrow home's file of a kept module holds other bytes now (changed on disk).
    case damaged(sha256: String, actual: String)
    /// The escrow home's module store could not be read or written.
    case storeFailed(String)

    public var description: String {
        switch self {
        case .notWebAssembly(let reason):
            "the module is not valid WebAssembly: \(reason)"
        case .tooLarge(let bytes, let limit):
            // The same words as the daemon's and the SDK's refusal of a module too large to send.
            RPCError.moduleTooLarge(length: bytes, maximum: limit).description
        case .unknownImport(let module, let name):
            "the module imports \(DisplayText.escaped(module)).\(DisplayText.escaped(name)), which the escrow does not offer: "
                + "a module may import only the escrow's own functions (module \"\(ModuleABI.importModule)\": \(ModuleABI.imports.keys.sorted().joined(separator: ", "))); "
                + "no WASI, files, clock or other modules"
        case .wrongImport(let name, let expected):
            "the module imports \(ModuleABI.importModule).\(DisplayText.escaped(name)) with the wrong type; it is \(expected)"
        case .missingExport(let name, let expected):
            "the module does not export \(name) as \(expected), which the escrow needs to run it"
        case .missingManifest:
            "the module has no \"\(ModuleABI.manifestSection)\" custom section saying its id, version, summary and inputs "
                + "(docs/MODULES.md, \"The manifest\"; add one with llvm-objcopy --add-section=\(ModuleABI.manifestSection)=module.json)"
        case .badManifest(let reason):
            "the module's manifest (its \"\(ModuleABI.manifestSection)\" section) is not valid: \(reason)"
        case .reservedID(let id):
            "the module calls itself \(id), the id of a compute function built into the escrow; give it an id of its own"
        case .unknownModule(let reference):
            "no module \(DisplayText.escaped(reference)) in the escrow home (see escrow modules list; add one with escrow modules add FILE)"
        case .ambiguousModule(let reference, let matches):
            "\(DisplayText.escaped(reference)) matches several modules (\(matches.joined(separator: ", "))); give more characters of the digest"
        case .digestMismatch(let expected, let actual):
            "the module's bytes have SHA-256 \(actual), not \(expected) as they were sent under"
        case .damaged(let sha256, let actual):
            "the kept module \(sha256) is damaged: its file in the escrow home holds other bytes now (SHA-256 \(actual)); "
                + "it will not run. Remove it (escrow modules remove \(sha256.prefix(12))) or add the module again"
        case .storeFailed(let reason):
            "the escrow home's modules could not be read or written: \(reason)"
        }
    }
}

/// A module run that did not produce an output: which limit it hit, or how it failed.
public enum ModuleRunError: Error, Sendable, Equatable, CustomStringConvertible {
    /// It executed as many instructions as a run may (`ModuleLimits.fuel`).
    case outOfFuel(limit: UInt64)
    /// It asked for more memory than a run may have (`ModuleLimits.memoryBytes`).
    case memoryLimit(limit: Int, asked: Int)
    /// It ran longer than a run may (`ModuleLimits.wallTime`).
    case wallTime(limit: Duration)
    /// It trapped: an `unreachable`, an out-of-bounds access, a division by zero…
    case trapped(String)
    /// It gave an escrow function a pointer range outside its memory, or a text that is not UTF-8.
    case badCall(function: String, reason: String)
    /// It called `fail` with this message.
    case failed(String)
    /// `escrow_run` returned this non-zero code without calling `fail`.
    case returned(Int32)
    /// It returned without writing an output frame.
    case noOutput
    /// The output it wrote is not a valid frame.
    case badOutput(String)
    /// It failed on a compute server, which said why (one of the reasons above, in words).
    case onServer(server: String, String)

    public var description: String {
        switch self {
        case .outOfFuel: "\(reason) (escrow config set modules.fuel N raises it)"
        case .memoryLimit: "\(reason) (escrow config set modules.memory-mb N raises it)"
        case .wallTime: "\(reason) (escrow config set modules.wall-time-ms N raises it)"
        default: reason
        }
    }

    /// What happened, without how the individual raises a limit (a compute server's operator
    /// sets its own).
    public var reason: String {
        switch self {
        case .outOfFuel(let limit):
            "the module executed more than \(limit) instructions, the limit of one run"
        case .memoryLimit(let limit, let asked):
            "the module asked for \(asked) bytes of memory; one run may have at most \(limit)"
        case .wallTime(let limit):
            "the module ran longer than \(limit.plainSeconds), the limit of one run"
        case .trapped(let reason):
            "the module trapped (\(reason)); it has a bug its author must fix"
        case .badCall(let function, let reason):
            "the module called \(ModuleABI.importModule).\(function) wrongly: \(reason)"
        case .failed(let message):
            "the module failed: \(message)"
        case .returned(let code):
            "the module's \(ModuleABI.entryPoint) returned \(code) (not 0) without saying why"
        case .noOutput:
            "the module finished without writing an output frame (\(ModuleABI.importModule).output_write)"
        case .badOutput(let reason):
            "the module's output is not a valid frame: \(reason)"
        case .onServer(let server, let message):
            "on compute server \(server): \(DisplayText.escaped(message))"
        }
    }
}

extension Duration {
    /// "2.5 s", "250 ms".
    var plainSeconds: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : milliseconds >= 1000
            ? "\(Double(milliseconds) / 1000) s" : "\(milliseconds) ms"
    }
}
