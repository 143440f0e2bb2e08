import Foundation
import PackagePlugin

/// Gives the target `BuildInfo.generatedVersion` (the top-level `VERSION` file) and
/// `BuildInfo.generatedRevision` (`ALERTD_REVISION`, else the git revision, else "unknown"), through
/// `scripts/build-info.sh`. It runs before every build, since no input file says when the
/// revision moved; the script rewrites its output only when it changes.
@main
struct EmbedBuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        // The script finds git on PATH; ALERTD_REVISION names the revision where there is no .git (Docker).
        let inherited = ProcessInfo.processInfo.environment
        let environment = ["PATH", "ALERTD_REVISION"].reduce(into: [String: String]()) { $0[$1] = inherited[$1] }
        return [
            .prebuildCommand(
                displayName: "Embedding the version and git revision",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [package.appending(path: "scripts/build-info.sh").path, package.path, output.path],
                environment: environment,
                outputFilesDirectory: output
            )
        ]
    }
}
