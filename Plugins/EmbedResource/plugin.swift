import PackagePlugin

/// Embeds the package's top-level `openapi.yaml` into the target as `EmbeddedOpenAPI.text`,
/// so the server serves exactly the spec that sits in the repository.
@main
struct EmbedResource: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "openapi.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedOpenAPI.swift")
        return [
            .buildCommand(
                displayName: "Embedding openapi.yaml",
                executable: try context.tool(named: "embed-resource").url,
                arguments: [input.path, output.path, "EmbeddedOpenAPI"],
                inputFiles: [input],
                outputFiles: [output]
            )
        ]
    }
}
