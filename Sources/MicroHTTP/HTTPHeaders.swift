/// An ordered list of HTTP header fields. Lookups ignore case.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Equatable {
        /// The name as given (requests: lower-cased by the server).
        public var name: String
        /// The value, unparsed.
        public var value: String
    }

    private var fields: [Field]

    /// Creates headers from name/value pairs, keeping their order.
    public init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the header `name` (case-insensitive), or nil.
    public subscript(_ name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Appends a field; an existing field of the same name stays.
    /// - Parameters:
    ///   - name: the field name.
    ///   - value: the field value.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Whether a field named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        // Request names are lower-cased already and lookups use lower case: try the plain compare first.
        self == other || (utf8.count == other.utf8.count && lowercased() == other.lowercased())
    }
}
