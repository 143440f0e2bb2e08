import AlertMCP
import JSON
import Locking

/// Drives an `MCPServer` as a client would: sends JSON text, reads the replies and what it emitted.
final class Client: Sendable {
    let server: MCPServer
    let backend: MemoryBackend
    private let emitted = Lock<[JSONValue]>([])

    init(options: MCPServer.Options = MCPServer.Options(version: "test")) {
        backend = MemoryBackend()
        server = MCPServer(backend: backend, options: options)
    }

    /// The reply to `text`, parsed; `nil` when there is none.
    func send(_ text: String) async -> JSONValue? {
        let reply = await server.handle(Array(text.utf8)) { bytes in
            let value = try! JSONParser.parse(bytes)
            self.emitted.withLock { $0.append(value) }
        }
        return reply.map { try! JSONParser.parse($0) }
    }

    /// `tools/call` of `name` with `arguments` (JSON text), its `result`.
    func call(_ name: String, _ arguments: String, id: Int = 1, progressToken: String? = nil) async -> JSONObject? {
        let meta = progressToken.map { #","_meta":{"progressToken":"\#($0)"}"# } ?? ""
        let reply = await send(#"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"\#(name)","arguments":\#(arguments)\#(meta)}}"#)
        return reply?.objectValue?["result"]?.objectValue
    }

    var notifications: [JSONValue] { emitted.withLock { $0 } }
}

extension JSONObject {
    /// `structuredContent` of a tool result.
    var structured: JSONObject? { self["structuredContent"]?.objectValue }

    /// The first text block of a tool result.
    var text: String? { self["content"]?.arrayValue?.first?.objectValue?["text"]?.stringValue }

    var isError: Bool { self["isError"] == .bool(true) }
}

func json(_ text: String) -> JSONValue {
    try! JSONParser.parse(Array(text.utf8))
}
