/// What was built: the version (the top-level `VERSION` file) and the git revision it was built
/// from ("unknown" when built without git, as from a tarball). Both are fixed at build time by
/// the `EmbedBuildInfo` plugin.
public enum BuildInfo {
    /// The version, such as `1.0.0`.
    public static let version = generatedVersion
    /// The abbreviated git commit, such as `fd7ba29a1c`, or `unknown`.
    public static let revision = generatedRevision

    /// `<program> <version> (git <revision>)`, the line `--version` prints.
    public static func versionLine(_ program: String) -> String {
        "\(program) \(version) (git \(revision))"
    }

    /// The `User-Agent` of alertd's own HTTP requests (webhooks): `alertd/<version>`.
    public static var userAgent: String {
        "alertd/\(version)"
    }
}
