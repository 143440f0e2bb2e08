/// A JSON object whose members keep their input order.
///
/// Keys are unique. They compare as Swift strings, so canonically equivalent spellings (`"\u00E9"` and
/// `"e\u0301"`) are the same key. Lookup by key is a linear scan, which beats hashing for the small
/// objects of request bodies.
///
/// Equality compares members in order: `{"a":1,"b":2}` and `{"b":2,"a":1}` differ, as their encodings do.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The members in input order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// Creates an object from key-value pairs, in order.
    ///
    /// - Parameters:
    ///   - pairs: the members. When a key repeats, the last value wins and keeps the key's first position.
    public init(_ pairs: [(String, JSONValue)]) {
        members = []
        members.reserveCapacity(pairs.count)
        var positions: [String: Int] = [:]
        for (key, value) in pairs {
            if let position = positions[key] {
                members[position].value = value
            } else {
                positions[key] = members.count
                members.append((key, value))
            }
        }
    }

    /// Creates an object from a dictionary literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// Creates an object from members whose keys the caller has checked to be unique.
    init(uniqueMembers: [(key: String, value: JSONValue)]) {
        members = uniqueMembers
    }

    /// The value for `key`, or `nil` if the object has no such member.
    public subscript(key: String) -> JSONValue? {
        for member in members where member.key == key {
            return member.value
        }
        return nil
    }

    /// The keys in input order.
    public var keys: [String] {
        members.map(\.key)
    }

    /// The number of members.
    public var count: Int {
        members.count
    }

    /// `true` if the object has no members.
    public var isEmpty: Bool {
        members.isEmpty
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
