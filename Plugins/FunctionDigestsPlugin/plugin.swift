import Foundation
import PackagePlugin

/// Generates `GeneratedSourceDigests`: a code digest for every source file of the target, so that
/// editing a compute function (or the shared code under `Support/`) changes its digest and so
/// needs a new approval. Reruns whenever a source file of the target changes.
@main
struct FunctionDigestsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let sources = target.sourceFiles(withSuffix: "swift").map(\.url)
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedSourceDigests.swift")
        return [
            .buildCommand(
                displayName: "Hashing compute function sources of \(target.name)",
                executable: try context.tool(named: "EscrowCodegen").url,
                arguments: ["digests", output.path, "Support"] + sources.map(\.path),
                inputFiles: sources,
                outputFiles: [output]
            )
        ]
    }
}
