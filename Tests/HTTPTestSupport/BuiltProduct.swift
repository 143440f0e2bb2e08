import Foundation

/// Executables `swift build` made, found next to the running test bundle.
public enum BuiltProduct {
    /// The built executable `name` (`alertd`, `alertctl`) in the test bundle's folder or one above it (`swift build`
    /// puts both in one folder), or a path that does not exist.
    public static func url(_ name: String) -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        while !folder.path.isEmpty, folder.path != "/" {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "/nonexistent/\(name)")
    }

    /// `url(name)` as a path.
    public static func path(_ name: String) -> String {
        url(name).path
    }
}
