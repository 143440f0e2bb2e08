import Foundation

/// The executables `swift build` made, found next to the running test bundle.
public enum BuiltProduct {
    /// The path of the built executable `name` (`alertd`, `alertctl`): the first folder above the test bundle that
    /// holds it (`swift build` puts products and the test bundle in one folder), or a path that does not exist.
    public static func path(_ name: String) -> String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        while !folder.path.isEmpty, folder.path != "/" {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            folder = folder.deletingLastPathComponent()
        }
        return "/nonexistent/" + name
    }
}
