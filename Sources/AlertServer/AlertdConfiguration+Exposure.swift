import AlertAPI
import MicroHTTP

extension AlertdConfiguration {
    /// Whether anyone beyond this machine could reach an open alertd: no tokens, and a host that does not stand for
    /// loopback addresses only.
    public var servesOpenBeyondLoopback: Bool {
        tokens.isEmpty && !(http.hostAddresses.map { $0.allSatisfy(Self.isLoopback) } ?? Self.isLoopback(http.host))
    }

    /// Refuses a host that does not resolve, and serving open beyond this machine unless `insecure` says so.
    /// - Throws: `ConfigurationError` saying why and what to do instead.
    public func checkExposure() throws(ConfigurationError) {
        guard http.hostAddresses != nil else {
            throw ConfigurationError(description: """
                cannot listen on '\(http.host)': it is not an IP address, and the name does not resolve. Give an \
                address of this machine (--host 127.0.0.1, --host ::1) or a name that resolves to one.
                """)
        }
        guard servesOpenBeyondLoopback, !insecure else { return }
        throw ConfigurationError(description: """
            refusing to listen on \(http.host) without access tokens: anyone who can reach it could read every \
            alert, answer it, and see the passwords typed into secure fields. Configure tokens \
            (--tokens-file FILE or ALERTD_TOKENS; see docs/SECURITY.md), listen on a loopback \
            address (--host 127.0.0.1), or pass --insecure to serve open anyway.
            """)
    }

    /// The start line about access: the auth mode, and how many tokens are loaded from where.
    public var accessLine: String {
        guard !tokens.isEmpty else {
            return servesOpenBeyondLoopback
                ? "alertd: auth: open (no tokens, --insecure): anyone who can reach it may do everything"
                : "alertd: auth: open (no tokens): every local request may do everything"
        }
        let sources = [tokensFile.map { "--tokens-file \($0)" }, environmentTokens.isEmpty ? nil : "ALERTD_TOKENS"]
        let noun = tokens.count == 1 ? "token" : "tokens"
        return "alertd: auth: bearer tokens: \(tokens.count) \(noun) loaded from "
            + sources.compactMap { $0 }.joined(separator: " and ")
    }

    /// `localhost`, `::1` and 127.0.0.0/8.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { UInt8($0) != nil } && octets[0] == "127"
    }
}
