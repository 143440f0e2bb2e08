import PackagePlugin

/// Embeds the package's top-level `openapi.yaml` into the target as `EmbeddedOpenAPI.text`,
/// so the server serves exactly the spec that sits in the repository; and the responder page's stylesheet
/// (`Sources/AlertAPI/App/app.css`) as `EmbeddedAppCSS.text`, so the page needs no file beside the binary.
///
/// The command's input is `openapi.yaml` (and, as SwiftPM adds, the tool) and its output the one generated file.
/// The output lies in the plugin's work directory, which debug and release builds share, and SwiftPM relinks the
/// tool when the configuration changes, so the command does run again then: embed-resource leaves an output that
/// already holds the text untouched, and AlertAPI is recompiled only when `openapi.yaml` changed.
@main
struct EmbedResource: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let tool = try context.tool(named: "embed-resource").url
        let files = [("openapi.yaml", "EmbeddedOpenAPI"), ("Sources/AlertAPI/App/app.css", "EmbeddedAppCSS")]
        return files.map { path, symbol in
            let input = context.package.directoryURL.appending(path: path)
            let output = context.pluginWorkDirectoryURL.appending(path: "\(symbol).swift")
            return .buildCommand(
                displayName: "Embedding \(path)",
                executable: tool,
                arguments: [input.path, output.path, symbol],
                inputFiles: [input],
                outputFiles: [output]
            )
        }
    }
}
