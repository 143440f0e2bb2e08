/// The caller as the server's access control sees it (`GET /v1/me`, `Me` in `openapi.yaml`).
public struct Identity: Codable, Sendable, Equatable {
    /// The token's name; `nil` when alertd runs without tokens.
    public var name: String?
    /// `producer`, `responder`, `admin` or `monitor`.
    public var role: String
    /// The name's groups from the tokens file.
    public var groups: [String]

    /// - Parameters: the members of the JSON object.
    public init(name: String?, role: String, groups: [String]) {
        self.name = name
        self.role = role
        self.groups = groups
    }
}
