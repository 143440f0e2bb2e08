/// A malformed JSON text: where and why.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset into the input (0-based) where the problem was found.
    public let offset: Int
    /// A readable reason, such as "unexpected end of input" or "duplicate key \"title\"".
    public let reason: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - offset: byte offset into the input, 0-based.
    ///   - reason: what is wrong, readable by the client that sent the text.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        "JSON syntax error at byte \(offset): \(reason)"
    }
}
