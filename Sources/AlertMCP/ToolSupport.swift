import JSON

/// A tool argument that is missing or wrong: the call answers `isError` naming it (MCP 2025-11-25: input validation
/// errors are tool execution errors, so the model can correct itself).
struct ToolInputError: Error, Sendable {
    /// A JSON pointer into the arguments: `/buttons/1/style`.
    var argument: String
    var reason: String

    var message: String { "Invalid argument \(argument): \(reason)" }
}

/// Typed reads of a tool's arguments, each failure naming the argument.
struct Arguments {
    let object: JSONObject
    let path: String

    /// - Parameter allowed: the member names accepted; any other is refused (a typo would otherwise pass unseen).
    init(_ object: JSONObject, path: String = "", allowed: [String]?) throws(ToolInputError) {
        self.object = object
        self.path = path
        if let allowed, let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw ToolInputError(
                argument: "\(path)/\(unknown)",
                reason: "is not an argument of this tool (it takes \(allowed.joined(separator: ", ")))"
            )
        }
    }

    func pointer(_ key: String) -> String { "\(path)/\(key)" }

    func value(_ key: String) -> JSONValue? {
        switch object[key] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    func required<T>(_ key: String, _ read: (String) throws(ToolInputError) -> T?) throws(ToolInputError) -> T {
        guard let value = try read(key) else {
            throw ToolInputError(argument: pointer(key), reason: "is required")
        }
        return value
    }

    func string(_ key: String, maxLength: Int? = nil) throws(ToolInputError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let string) = value else { throw wrongType(key, "a string", value) }
        if let maxLength, string.count > maxLength {
            throw ToolInputError(argument: pointer(key), reason: "is \(string.count) characters; at most \(maxLength)")
        }
        return string
    }

    func bool(_ key: String) throws(ToolInputError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let bool) = value else { throw wrongType(key, "a boolean", value) }
        return bool
    }

    func integer(_ key: String, in range: ClosedRange<Int64>? = nil) throws(ToolInputError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard let integer = value.int64Value else { throw wrongType(key, "an integer", value) }
        if let range, !range.contains(integer) {
            throw outOfRange(key, "\(integer)", "\(range.lowerBound) to \(range.upperBound)")
        }
        return integer
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws(ToolInputError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.doubleValue else { throw wrongType(key, "a number", value) }
        guard range.contains(number) else {
            throw outOfRange(key, "\(number)", "\(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    func array(_ key: String, maxCount: Int) throws(ToolInputError) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array", value) }
        guard elements.count <= maxCount else {
            throw ToolInputError(argument: pointer(key), reason: "has \(elements.count) elements; at most \(maxCount)")
        }
        return elements
    }

    func oneOf(_ key: String, _ choices: [String]) throws(ToolInputError) -> String? {
        guard let string = try string(key) else { return nil }
        guard choices.contains(string) else {
            throw outOfRange(key, "\"\(string)\"", "one of \(choices.joined(separator: ", "))")
        }
        return string
    }

    func outOfRange(_ key: String, _ given: String, _ allowed: String) -> ToolInputError {
        ToolInputError(argument: pointer(key), reason: "is \(given); it must be \(allowed)")
    }

    func wrongType(_ key: String, _ expected: String, _ value: JSONValue) -> ToolInputError {
        ToolInputError(argument: pointer(key), reason: "must be \(expected), not \(value.typeName)")
    }
}

/// Tool results: `structuredContent` and the same JSON as one text block, or `isError` with a reason.
enum ToolResult {
    static func success(_ structured: JSONObject) -> JSONValue {
        let text = String(decoding: JSONWriter.encode(.object(structured)), as: UTF8.self)
        return .object([
            "content": .array([.object(["type": .string("text"), "text": .string(text)])]),
            "structuredContent": .object(structured),
            "isError": .bool(false),
        ])
    }

    static func failure(_ reason: String) -> JSONValue {
        .object([
            "content": .array([.object(["type": .string("text"), "text": .string(reason)])]),
            "isError": .bool(true),
        ])
    }
}

/// The JSON shapes of alerts and Results in tool output (the same members as alertd's REST API).
enum Shapes {
    static func result(_ outcome: AlertOutcome, fields: [AlertSnapshot.Field], reveal: Bool) -> JSONObject {
        let values: [JSONValue] = outcome.values.enumerated().map { index, value in
            guard let value else { return .null }
            let secure = index < fields.count && fields[index].secure
            return .string(secure && !reveal ? MCPServer.secureMarker : value)
        }
        return [
            "buttonIndex": .integer(Int64(outcome.buttonIndex)),
            "buttonTitle": .string(outcome.buttonTitle),
            "ok": .bool(outcome.ok),
            "values": .array(values),
            "resolution": .string(outcome.resolution),
            "resolvedAt": .string(outcome.resolvedAt),
            "responder": outcome.responder.map(JSONValue.string) ?? .null,
        ]
    }

    static func alert(_ alert: AlertSnapshot, reveal: Bool) -> JSONObject {
        [
            "id": .string(alert.id),
            "title": .string(alert.title),
            "message": .string(alert.message),
            "style": .string(alert.style),
            "presenter": .string(alert.presenter),
            "tag": .integer(alert.tag),
            "buttons": .array(alert.buttons.map { button in
                .object([
                    "index": .integer(Int64(button.index)), "title": .string(button.title),
                    "style": .string(button.style),
                ])
            }),
            "fields": .array(alert.fields.map { field in
                .object([
                    "index": .integer(Int64(field.index)), "placeholder": .string(field.placeholder),
                    "secure": .bool(field.secure), "keyboard": .string(field.keyboard),
                ])
            }),
            "state": .string(alert.isPending ? "pending" : "resolved"),
            "result": alert.result.map { .object(result($0, fields: alert.fields, reveal: reveal)) } ?? .null,
            "createdAt": .string(alert.createdAt),
            "expiresAt": alert.expiresAt.map(JSONValue.string) ?? .null,
        ]
    }

    /// `ask`'s output: the alert's id and its Result, flat.
    static func answer(_ id: String, _ fields: [AlertSnapshot.Field], _ outcome: AlertOutcome, reveal: Bool)
        -> JSONObject
    {
        let members = result(outcome, fields: fields, reveal: reveal).members.map { ($0.key, $0.value) }
        return JSONObject([("alertId", .string(id))] + members)
    }
}
