import EscrowModules
import Foundation
import Synchronization

/// The example compute modules of Examples/Modules, built from source by scripts/build-modules.sh
/// (scripts/test.sh runs it first; a test that finds a module missing builds it), and helpers to
/// make hostile modules.
public enum ExampleModules {
    /// The modules checked (and built when stale) by this process: each once.
    private static let checked = Mutex(Set<String>())

    /// Where the module `name` (a folder of Examples/Modules) is built. The first call for a name
    /// builds it when it is missing or older than the sources (scripts/test.sh builds them all
    /// before the tests, so that is rare); later calls only name the file.
    public static func url(_ name: String) throws -> URL {
        let url = BuiltExecutable.packageRoot.appendingPathComponent(".build/modules/\(name).wasm")
        try checked.withLock { checked in
            guard !checked.contains(name) else { return }
            let sources = BuiltExecutable.packageRoot.appendingPathComponent("Examples/Modules")
            if !FileManager.default.fileExists(atPath: url.path) || isOlder(url, than: sources) {
                let script = BuiltExecutable.packageRoot.appendingPathComponent("scripts/build-modules.sh")
                let result = try ChildProcess.run(script, [name])
                guard result.status == 0 else {
                    throw ExampleModuleError(description: "scripts/build-modules.sh \(name) failed: \(result.errors)")
                }
            }
            checked.insert(name)
        }
        return url
    }

    /// The bytes of the built module `name`.
    public static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: url(name)))
    }

    /// `module` with a custom section appended (a custom section may come anywhere).
    public static func appendingSection(_ name: String, _ payload: [UInt8], to module: [UInt8]) -> [UInt8] {
        ModuleBinary.appendingCustomSection(name, payload, to: module)
    }

    /// `module` with the manifest `json` appended as its escrow.module section.
    public static func withManifest(_ module: [UInt8], _ json: String) -> [UInt8] {
        appendingSection("escrow.module", Array(json.utf8), to: module)
    }

    /// `bytes` as the text of a WebAssembly text format string (`(data … "…")`), every byte escaped.
    public static func watString(_ bytes: [UInt8]) -> String {
        bytes.map { "\\" + String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// A small valid manifest.
    public static func manifest(id: String = "test.module", inputs: String = "\"any\"", parameters: String = "[]") -> String {
        #"{"id": "\#(id)", "version": 1, "summary": "A module the tests build.", "inputs": \#(inputs), "parameters": \#(parameters)}"#
    }

    /// Whether `file` is older than the newest file under `folder`.
    private static func isOlder(_ file: URL, than folder: URL) -> Bool {
        let built = (try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.contentModificationDateKey])
        while let source = files?.nextObject() as? URL {
            if let changed = try? source.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate, changed > built {
                return true
            }
        }
        return false
    }
}

public struct ExampleModuleError: Error, CustomStringConvertible {
    public let description: String
}

private extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
