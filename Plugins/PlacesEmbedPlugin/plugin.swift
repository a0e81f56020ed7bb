import Foundation
import PackagePlugin

/// Embeds EscrowLocation's place table, `Places/places.bin` (written by scripts/make-places.sh),
/// into the target as a base64 string literal, so a binary copied anywhere still carries it.
@main
struct PlacesEmbedPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        // `Target.directoryURL` needs tools version 6.1; the package's folder is there in 6.0.
        let table = context.package.directoryURL.appending(path: "Sources/\(target.name)/Places/places.bin")
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedPlaces.swift")
        return [
            .buildCommand(
                displayName: "Embedding the place table Places/places.bin",
                executable: try context.tool(named: "EscrowCodegen").url,
                arguments: ["blob", output.path, "GeneratedPlaces", table.path],
                inputFiles: [table],
                outputFiles: [output]
            )
        ]
    }
}
