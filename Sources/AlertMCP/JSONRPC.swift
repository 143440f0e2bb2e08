import JSON

/// JSON-RPC 2.0 as MCP uses it: one message per text, objects as params, no batches (MCP 2025-06-18 removed them).
public enum JSONRPC {
    /// A request id: a string or an integer (MCP forbids `null`).
    public enum ID: Sendable, Hashable, CustomStringConvertible {
        case string(String)
        case integer(Int64)

        /// The id as JSON.
        public var json: JSONValue {
            switch self {
            case .string(let value): .string(value)
            case .integer(let value): .integer(value)
            }
        }

        /// The id from JSON, if it is a string or an integer.
        public init?(_ value: JSONValue) {
            switch value {
            case .string(let string): self = .string(string)
            case .integer(let integer): self = .integer(integer)
            default: return nil
            }
        }

        public var description: String {
            switch self {
            case .string(let value): "\"\(value)\""
            case .integer(let value): String(value)
            }
        }
    }

    /// One parsed message.
    public enum Message: Sendable, Equatable {
        /// A request: it wants a response with its id.
        case request(id: ID, method: String, params: JSONObject)
        /// A notification: no id, no response.
        case notification(method: String, params: JSONObject)
        /// A response to a request of ours (the server sends none, so it is ignored).
        case response(id: ID?)
    }

    /// The error codes of JSON-RPC 2.0 that MCP uses.
    public enum Code: Int64, Sendable {
        case parseError = -32700
        case invalidRequest = -32600
        case methodNotFound = -32601
        case invalidParams = -32602
        case internalError = -32603
        /// MCP 2026-07-28: the request's `_meta` names a protocol version the server does not speak.
        case unsupportedProtocolVersion = -32022
    }

    /// A JSON-RPC error object, and the id it answers (`nil` is written as `null`: the request's id was unreadable).
    public struct Failure: Error, Sendable, Equatable {
        public var id: ID?
        public var code: Code
        public var message: String
        public var data: JSONValue?

        public init(id: ID?, code: Code, message: String, data: JSONValue? = nil) {
            self.id = id
            self.code = code
            self.message = message
            self.data = data
        }

        /// `-32602`: a parameter is missing or wrong; `data` is `{"argument": …, "reason": …}`.
        public static func invalidParams(id: ID?, argument: String, reason: String) -> Failure {
            Failure(
                id: id, code: .invalidParams, message: "Invalid params: \(argument) \(reason)",
                data: .object(["argument": .string(argument), "reason": .string(reason)])
            )
        }
    }

    /// The largest message accepted, in bytes.
    public static let maxMessageBytes = 1 << 20

    /// Parses one message.
    ///
    /// - Parameter bytes: one JSON text (a stdio line without its newline, or an HTTP body).
    /// - Returns: the message.
    /// - Throws: `Failure`: `-32700` for text that is not JSON, `-32600` for JSON that is not a JSON-RPC 2.0
    ///   message (a batch among them), `-32602` when `params` is not an object. The failure's id is the message's
    ///   when it could be read.
    public static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> Message {
        guard bytes.count <= maxMessageBytes else {
            throw Failure(
                id: nil, code: .invalidRequest, message: "Invalid request: larger than \(maxMessageBytes) bytes"
            )
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maxDepth: 64)
        } catch {
            throw Failure(id: nil, code: .parseError, message: "Parse error: \(error.reason) at byte \(error.offset)")
        }
        return try message(value)
    }

    /// Reads a parsed JSON value as one message (see `parse(_:)`).
    public static func message(_ value: JSONValue) throws(Failure) -> Message {
        guard case .object(let object) = value else {
            if case .array = value {
                throw Failure(id: nil, code: .invalidRequest, message: "Invalid request: batches are not supported")
            }
            throw Failure(id: nil, code: .invalidRequest, message: "Invalid request: a message is a JSON object")
        }
        let rawID = object["id"]
        let id = rawID.flatMap(ID.init)
        guard object["jsonrpc"] == .string("2.0") else {
            throw Failure(id: id, code: .invalidRequest, message: "Invalid request: \"jsonrpc\" must be \"2.0\"")
        }
        if let rawID, id == nil {
            throw Failure(
                id: nil, code: .invalidRequest,
                message: "Invalid request: \"id\" must be a string or an integer, not \(rawID.typeName)"
            )
        }
        guard let methodValue = object["method"] else {
            if object["result"] != nil || object["error"] != nil {
                return .response(id: id)
            }
            throw Failure(id: id, code: .invalidRequest, message: "Invalid request: \"method\" is missing")
        }
        guard case .string(let method) = methodValue else {
            throw Failure(id: id, code: .invalidRequest, message: "Invalid request: \"method\" must be a string")
        }
        var params: JSONObject = [:]
        switch object["params"] {
        case nil, .null?:
            break
        case .object(let given)?:
            params = given
        case let other?:
            throw Failure.invalidParams(id: id, argument: "params", reason: "must be an object, not \(other.typeName)")
        }
        if let id {
            return .request(id: id, method: method, params: params)
        }
        return .notification(method: method, params: params)
    }

    /// `{"jsonrpc":"2.0","id":…,"result":…}`.
    public static func result(id: ID, _ result: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("jsonrpc")
        writer.write("2.0")
        writer.key("id")
        writer.write(id.json)
        writer.key("result")
        writer.write(result)
        writer.endObject()
        return writer.bytes
    }

    /// `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data":…}}`.
    public static func error(_ failure: Failure) -> [UInt8] {
        var error: JSONObject = ["code": .integer(failure.code.rawValue), "message": .string(failure.message)]
        if let data = failure.data {
            error = JSONObject(error.members.map { ($0.key, $0.value) } + [("data", data)])
        }
        return JSONWriter.encode(
            .object(["jsonrpc": .string("2.0"), "id": failure.id?.json ?? .null, "error": .object(error)])
        )
    }

    /// `{"jsonrpc":"2.0","method":…,"params":…}`.
    public static func notification(method: String, params: JSONObject) -> [UInt8] {
        JSONWriter.encode(.object(["jsonrpc": .string("2.0"), "method": .string(method), "params": .object(params)]))
    }
}
