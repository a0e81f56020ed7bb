import Foundation
import PackagePlugin

/// Embeds the numbered SQL migrations of the top-level `Schemas/data` and `Schemas/state` folders
/// into the target, so the binaries carry their schema and `Schemas/` stays the one place the DDL
/// is written.
@main
struct SchemaEmbedPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL.appending(path: "Schemas")
        var files: [URL] = []
        var folders: [URL] = []
        for group in ["data", "state"] {
            let folder = root.appending(path: group)
            folders.append(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".sql") }
                .sorted()
            files += names.map { folder.appending(path: $0) }
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedSchemas.swift")
        return [
            .buildCommand(
                displayName: "Embedding schema migrations from Schemas/",
                executable: try context.tool(named: "EscrowCodegen").url,
                arguments: ["schemas", output.path, "Schemas"] + files.map(\.path),
                inputFiles: files + folders,
                outputFiles: [output]
            )
        ]
    }
}
