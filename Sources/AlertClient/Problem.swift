/// An RFC 9457 problem detail, as alertd sends it (`application/problem+json`).
public struct Problem: Codable, Sendable, Equatable {
    /// One bad member of a request body (by `pointer`) or one bad query parameter (by `parameter`).
    public struct Issue: Codable, Sendable, Equatable {
        /// RFC 6901 pointer into the request body, such as `/buttons/1/style`.
        public var pointer: String?
        /// The name of a bad query parameter, such as `wait`.
        public var parameter: String?
        /// What is wrong with it.
        public var detail: String

        /// - Parameters:
        ///   - pointer: JSON pointer, for body problems.
        ///   - parameter: Query parameter name, for parameter problems.
        ///   - detail: What is wrong.
        public init(pointer: String? = nil, parameter: String? = nil, detail: String) {
            self.pointer = pointer
            self.parameter = parameter
            self.detail = detail
        }
    }

    /// `about:blank` or `urn:alertd:problem:<slug>`; branch on this (and `status`).
    public var type: String
    /// Short summary of the type.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// What went wrong this time, for a person.
    public var detail: String
    /// The request path, when given.
    public var instance: String?
    /// Each bad member or parameter (empty when the server named none).
    public var errors: [Issue]
    /// The Result that won, on `409 already-resolved`.
    public var result: RemoteResult?

    /// - Parameters: the members of the problem.
    public init(
        type: String, title: String, status: Int, detail: String, instance: String? = nil, errors: [Issue] = [],
        result: RemoteResult? = nil
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.instance = instance
        self.errors = errors
        self.result = result
    }

    private enum CodingKeys: String, CodingKey {
        case type, title, status, detail, instance, errors, result
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "about:blank"
        title = try container.decodeIfPresent(String.self, forKey: .title) ?? ""
        status = try container.decode(Int.self, forKey: .status)
        detail = try container.decodeIfPresent(String.self, forKey: .detail) ?? ""
        instance = try container.decodeIfPresent(String.self, forKey: .instance)
        errors = try container.decodeIfPresent([Issue].self, forKey: .errors) ?? []
        result = try container.decodeIfPresent(RemoteResult.self, forKey: .result)
    }
}
