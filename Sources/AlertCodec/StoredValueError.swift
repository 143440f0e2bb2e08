/// A stored value (a journal row's JSON column, a cluster table's alert document) that cannot be turned back into
/// what was stored: the store was damaged or written by something else.
public struct StoredValueError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
