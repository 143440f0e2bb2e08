import Foundation

extension AlertdConfiguration {
    /// The tokens of `tokensFile`, read now, and of `environmentTokens`.
    /// - Throws: `ConfigurationError` when the file cannot be read, holds a bad entry or no token at all, or repeats
    ///   a token or a name of `ALERTD_TOKENS` with another role.
    public func loadTokens() throws(ConfigurationError) -> AccessTokens {
        guard let tokensFile else { return environmentTokens }
        guard let data = FileManager.default.contents(atPath: tokensFile),
              let text = String(data: data, encoding: .utf8)
        else { throw ConfigurationError(description: "cannot read the tokens file '\(tokensFile)'") }
        return try AccessTokens(parsing: text, source: tokensFile).merged(with: environmentTokens)
    }
}
