import ArgumentParser
import EscrowCore
import EscrowFunctions
import EscrowHost
import EscrowModules
import EscrowStore
import Foundation

/// `escrow modules`: the compute modules apps brought or the individual added.
struct ModulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modules",
        abstract: "Add, list, show and remove compute modules (WebAssembly apps bring as their compute).",
        discussion: """
            A compute module is a WebAssembly file an app brings instead of a function
            built into the escrow. The escrow keeps it by the SHA-256 of its bytes, runs it
            in a sandbox under limits, and shows what it can do from what it imports,
            not from what it claims (docs/MODULES.md).

            Examples:
              escrow modules add bounds.wasm
              escrow modules list
              escrow modules show example.location-bounds
              escrow modules remove 3f2a9c
            """,
        subcommands: [ModulesListCommand.self, ModulesAddCommand.self, ModulesShowCommand.self, ModulesRemoveCommand.self],
        defaultSubcommand: ModulesListCommand.self
    )
}

extension GlobalOptions {
    /// The escrow home's module store.
    func moduleStore() throws -> ModuleStore {
        let home = try escrowHome()
        try home.requireInitialized()
        return ModuleStore(home: home, catalog: EscrowFunctions.catalog)
    }
}

struct ModulesAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Check a compute module and keep it in the escrow home.",
        discussion: "Example:\n  escrow modules add bounds.wasm")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The module: a .wasm file.") var file: String
    @Flag(help: "Print the module as a JSON object.") var json = false
    func run() async throws {
        try await reportingErrors {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CLIError("cannot read \(file): no such file, or it is not readable")
            }
            let store = try global.moduleStore()
            let existed = store.keeps(ComputeModule.sha256(of: [UInt8](data)))
            let module = try store.add([UInt8](data))
            if json {
                print(ModuleRendering.json(module))
            } else {
                print("\(existed ? "already kept" : "added"): \(module.manifest.id) version \(module.manifest.version), "
                    + "\(PlainWords.count(module.bytes.count, "byte")), SHA-256 \(module.sha256)")
                print("it \(module.abilities)")
            }
        }
    }
}

struct ModulesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the compute modules kept in the escrow home.",
        discussion: "Example:\n  escrow modules list --json")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print the modules as a JSON array.") var json = false
    func run() async throws {
        try await reportingErrors {
            let store = try global.moduleStore()
            let modules = try store.list()
            let damaged = try store.damaged()
            for file in damaged {
                Terminal.standardError.write("escrow: warning: the kept module \(file.sha256) is damaged (\(file.problem)); it will not run. "
                    + "Delete it with `escrow modules remove \(file.sha256.prefix(12))`, or add its file again\n")
            }
            if json {
                var writer = JSONWriter.forDisplay()
                writer.array(modules) { writer, module in writer.object { ModuleRendering.fields(of: module, into: &$0) } }
                print(writer.text)
            } else if modules.isEmpty {
                print("no compute modules: an app's first run with one adds it, or add one with `escrow modules add FILE`")
            } else {
                let rows = modules.map { module in
                    [String(module.sha256.prefix(12)), module.manifest.id, String(module.manifest.version),
                     String(module.bytes.count), module.contactsNetwork ? "network" : "nothing"]
                }
                print(TextTable.render(header: ["SHA-256", "ID", "VERSION", "BYTES", "CONTACTS"], rows: rows), terminator: "")
            }
        }
    }
}

struct ModulesShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show a compute module: what it says it does, and what its imports let it do.",
        discussion: "MODULE is a SHA-256 (or its first characters) or a module id.\n\nExample:\n  escrow modules show example.location-bounds")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The module's SHA-256, a prefix of it, or its id.") var module: String
    @Flag(help: "Print the module as a JSON object.") var json = false
    func run() async throws {
        try await reportingErrors {
            let found = try global.moduleStore().resolve(module)
            print(json ? ModuleRendering.json(found) : ModuleRendering.text(found, palette: .standardOutput), terminator: json ? "\n" : "")
        }
    }
}

struct ModulesRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Delete a compute module from the escrow home.",
        discussion: """
            Dataflows that run it keep their decisions; their next run needs the module
            again (an app sends it with its run; or escrow modules add FILE).

            Example:
              escrow modules remove 3f2a9c
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The module's SHA-256, a prefix of it, or its id.") var module: String
    @Flag(help: "Print what was removed as a JSON object.") var json = false
    func run() async throws {
        try await reportingErrors {
            let removed = try global.moduleStore().remove(module)
            if json {
                var writer = JSONWriter.forDisplay()
                writer.object { object in
                    object.field("sha256", removed.sha256)
                    object.field("id", removed.module?.manifest.id)
                    object.field("version", int: removed.module?.manifest.version)
                    object.field("damaged") { $0.bool(removed.module == nil) }
                }
                print(writer.text)
            } else if let kept = removed.module {
                print("removed \(kept.manifest.id) version \(kept.manifest.version) (SHA-256 \(removed.sha256))")
            } else {
                print("removed the damaged module file \(removed.sha256)")
            }
        }
    }
}

/// How the CLI shows compute modules.
enum ModuleRendering {
    static func text(_ module: ComputeModule, palette: Palette) -> String {
        var lines = [palette.paint("Compute module \(module.manifest.id)", .bold) + ", version \(module.manifest.version)", ""]
        lines.append(palette.paint("What it says it does (its own claim)", .bold))
        lines.append("  " + DisplayText.escaped(module.manifest.summary))
        lines.append("")
        lines.append(palette.paint("What it can do (from what it imports)", .bold))
        lines.append("  it " + (module.contactsNetwork ? palette.paint(module.abilities, .red) : module.abilities))
        lines.append("  imports: " + (module.imports.isEmpty ? "nothing" : module.imports.map { "escrow.\($0)" }.joined(separator: ", ")))
        lines.append("")
        lines.append(palette.paint("What it reads", .bold))
        lines.append("  " + DisplayText.escaped(module.manifest.inputs.description))
        lines.append("")
        lines.append(palette.paint("Parameters", .bold))
        if module.manifest.parameters.isEmpty { lines.append("  none") }
        for parameter in module.manifest.parameters {
            lines.append("  " + DisplayText.escaped("\(parameter.name): \(parameter.summary)"))
        }
        lines.append("")
        lines.append(palette.paint("Identity", .bold))
        lines.append("  SHA-256 \(module.sha256), \(PlainWords.count(module.bytes.count, "byte"))")
        lines.append("  (any change to its bytes is another module, and a dataflow using it a new dataflow to approve)")
        return lines.joined(separator: "\n") + "\n"
    }

    static func json(_ module: ComputeModule) -> String {
        var writer = JSONWriter.forDisplay()
        writer.object { fields(of: module, into: &$0) }
        return writer.text
    }

    static func fields(of module: ComputeModule, into object: inout JSONWriter.ObjectWriter) {
        object.field("sha256", module.sha256)
        object.field("id", module.manifest.id)
        object.field("version", int: module.manifest.version)
        object.field("summary", module.manifest.summary)
        object.field("bytes", int: module.bytes.count)
        object.field("imports", strings: module.imports)
        object.field("capabilities", strings: module.capabilities.map(\.rawValue))
        object.field("canDo", module.abilities)
        object.field("inputs", module.manifest.inputs.description)
        object.field("parameters") { writer in
            writer.array(module.manifest.parameters) { writer, parameter in
                writer.object { object in
                    object.field("name", parameter.name)
                    object.field("summary", parameter.summary)
                }
            }
        }
    }
}
