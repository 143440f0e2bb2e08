/// One problem with a request, naming the offending member by JSON pointer.
public struct FieldIssue: Sendable, Equatable, Error {
    /// A JSON pointer (RFC 6901) into the request as given, such as `/buttons/2` or `/fields/1/text`.
    public var pointer: String
    /// A sentence a user understands, such as "title is 300 characters; at most 256 are allowed".
    public var detail: String

    /// Creates an issue.
    ///
    /// - Parameters:
    ///   - pointer: A JSON pointer into the request as given.
    ///   - detail: What is wrong, in a sentence.
    public init(pointer: String, detail: String) {
        self.pointer = pointer
        self.detail = detail
    }
}
