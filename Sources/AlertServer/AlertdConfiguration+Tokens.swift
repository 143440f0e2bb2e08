import AlertAPI
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension AlertdConfiguration {
    /// The tokens of `tokensFile`, read now, and of `environmentTokens`.
    /// - Throws: `ConfigurationError` when the file cannot be read, others may write it, it holds a bad entry or no
    ///   token at all, or it repeats a token or a name of `ALERTD_TOKENS` with another role.
    public func loadTokens() throws(ConfigurationError) -> AccessTokens {
        guard let tokensFile else { return environmentTokens }
        guard let data = FileManager.default.contents(atPath: tokensFile) else {
            throw ConfigurationError(description: "cannot read the tokens file '\(tokensFile)': "
                + Self.whyUnreadable(tokensFile))
        }
        // Whoever may write the file may give themselves an admin token (at the next SIGHUP or restart).
        var status = stat()
        if stat(tokensFile, &status) == 0, status.st_mode & S_IWOTH != 0 {
            throw ConfigurationError(description: "the tokens file '\(tokensFile)' may be written by every user (mode "
                + String(status.st_mode & 0o777, radix: 8) + "), so anyone could add a token: chmod o-w it")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(description: "cannot read the tokens file '\(tokensFile)': it is not UTF-8 text")
        }
        return try AccessTokens(parsing: text, source: tokensFile).merged(with: environmentTokens)
    }

    /// The credential in `file` (`--notify-token-file`): its one line, an ntfy access token or `user:password`.
    /// - Throws: `ConfigurationError` naming the file, never its contents, when it cannot be read or holds no
    ///   credential.
    func loadNotifyCredential(_ file: String) throws(ConfigurationError) -> NotifyCredential {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError(description: "cannot read the ntfy credential file '\(file)': "
                + Self.whyUnreadable(file))
        }
        guard let text = String(data: data, encoding: .utf8), let credential = NotifyCredential(text) else {
            throw ConfigurationError(description: "the ntfy credential file '\(file)' holds no credential: one line, "
                + "an ntfy access token (tk_...) or user:password")
        }
        return credential
    }

    /// The system's reason why `path` could not be read: missing, not permitted, a directory.
    private static func whyUnreadable(_ path: String) -> String {
        if access(path, R_OK) != 0 { return String(cString: strerror(errno)) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return String(cString: strerror(EISDIR))
        }
        return "it could not be read"
    }
}
