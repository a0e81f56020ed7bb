/// The functions a compute module may import, and the ones it must export: the whole interface
/// between a module and the escrow (docs/MODULES.md, "The ABI"). Nothing else is linked in: no
/// WASI, no files, no clock, no randomness but `random`, no sockets but `http_send`.
///
/// Every parameter and result is an `i32`; a pointer is an offset into the module's exported
/// `memory`, and a range it names must lie wholly inside that memory.
public enum ModuleABI {
    /// The import module name of every escrow function.
    public static let importModule = "escrow"
    /// The function the escrow calls once per run: `() -> i32`, 0 for success.
    public static let entryPoint = "escrow_run"
    /// The linear memory the escrow reads and writes.
    public static let memory = "memory"
    /// The custom section holding the module's manifest (JSON, `ModuleManifest`).
    public static let manifestSection = "escrow.module"

    /// One function the escrow offers.
    public struct Import: Sendable, Hashable {
        public let name: String
        public let parameters: Int
        public let results: Int
        /// What importing it lets the module do, when that is worth telling the individual.
        public let capability: ModuleCapability?
    }

    /// The functions the escrow offers, by name.
    public static let imports: [String: Import] = Dictionary(uniqueKeysWithValues: [
        Import(name: "input_size", parameters: 0, results: 1, capability: nil),
        Import(name: "input_read", parameters: 1, results: 0, capability: nil),
        Import(name: "output_write", parameters: 2, results: 0, capability: nil),
        Import(name: "parameter_size", parameters: 2, results: 1, capability: nil),
        Import(name: "parameter_read", parameters: 3, results: 0, capability: nil),
        Import(name: "http_send", parameters: 8, results: 1, capability: .network),
        Import(name: "http_response_size", parameters: 0, results: 1, capability: nil),
        Import(name: "http_response_read", parameters: 1, results: 0, capability: nil),
        Import(name: "log", parameters: 2, results: 0, capability: .log),
        Import(name: "random", parameters: 2, results: 0, capability: .randomness),
        Import(name: "fail", parameters: 2, results: 0, capability: nil),
    ].map { ($0.name, $0) })

    /// `http_send`'s results below zero.
    public enum SendFailure: Int32, Sendable, CaseIterable {
        /// The individual blocks the request's domain.
        case blocked = -1
        /// The service could not be reached, or answered with something that is not HTTP.
        case unreachable = -2
        /// The escrow gives this run no network.
        case noNetwork = -3
        /// The request itself is not acceptable (a URL that is not http(s), a bad header).
        case badRequest = -4
        /// The run already made as many requests as one run may.
        case tooManyRequests = -5
    }
}

/// Something a module can do beyond computing its output, derived from what it imports.
public enum ModuleCapability: String, Sendable, Hashable, CaseIterable, Comparable {
    /// `http_send`: requests to services, through the escrow's recorded, filtered client.
    case network
    /// `log`: lines in the escrow host's own log (never the app's, never a server operator's).
    case log
    /// `random`: random bytes the escrow hands it.
    case randomness

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// Edits of a WebAssembly binary's bytes that keep its code.
public enum ModuleBinary {
    /// `module` with a custom section appended (a custom section may come anywhere in a binary):
    /// how a manifest is added (`llvm-objcopy --add-section` does the same), and how a module
    /// with the same code but another digest is made.
    public static func appendingCustomSection(_ name: String, _ payload: [UInt8], to module: [UInt8]) -> [UInt8] {
        let content = leb128(UInt64(name.utf8.count)) + Array(name.utf8) + payload
        return module + [0] + leb128(UInt64(content.count)) + content
    }

    /// Unsigned LEB128, WebAssembly's integers.
    static func leb128(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            var byte = UInt8(value & 0x7F)
            value >>= 7
            if value != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while value != 0
        return bytes
    }
}
