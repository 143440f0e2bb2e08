import AlertAPI
import Foundation
import Testing

/// The `paths:` section of an OpenAPI YAML document, read by indentation only (the toolchain
/// has no YAML parser): path → method → response status keys.
struct OpenAPIOutline {
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    var version: String?
    var paths: [String: [String: Set<String>]] = [:]

    init(_ text: String) {
        let lines = text.components(separatedBy: "\n").map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
        version = lines.first { $0.hasPrefix("openapi:") }.map {
            $0.dropFirst("openapi:".count).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["'", "\""])
        }
        // Non-blank, non-comment lines as (indent, key-or-nil).
        var entries: [(indent: Int, key: String?)] = []
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let indent = line.prefix { $0 == " " }.count
            entries.append((indent, Self.key(trimmed)))
        }
        guard let start = entries.firstIndex(where: { $0.indent == 0 && $0.key == "paths" }) else { return }
        var index = start + 1
        // The section ends at the next top-level key.
        let end = entries[index...].firstIndex { $0.indent == 0 } ?? entries.endIndex
        guard index < end else { return }
        let pathIndent = entries[index].indent
        while index < end {
            let entry = entries[index]
            index += 1
            guard entry.indent == pathIndent, let path = entry.key else { continue }
            var operations: [String: Set<String>] = [:]
            let pathEnd = entries[index..<end].firstIndex { $0.indent <= pathIndent } ?? end
            let childIndent = entries[index..<pathEnd].map(\.indent).min() ?? 0
            var child = index
            while child < pathEnd {
                let method = entries[child]
                child += 1
                guard method.indent == childIndent, let name = method.key, Self.methods.contains(name) else { continue }
                let operationEnd = entries[child..<pathEnd].firstIndex { $0.indent <= childIndent } ?? pathEnd
                operations[name] = Self.responses(in: entries[child..<operationEnd])
                child = operationEnd
            }
            paths[path] = operations
            index = pathEnd
        }
    }

    /// The status keys under an operation's `responses:`.
    private static func responses(in operation: ArraySlice<(indent: Int, key: String?)>) -> Set<String> {
        let keyIndent = operation.map(\.indent).min() ?? 0
        guard let responses = operation.firstIndex(where: { $0.indent == keyIndent && $0.key == "responses" })
        else { return [] }
        let rest = operation[(responses + 1)...]
        let end = rest.firstIndex { $0.indent <= keyIndent } ?? rest.endIndex
        let body = rest[..<end]
        let statusIndent = body.map(\.indent).min() ?? 0
        return Set(body.filter { $0.indent == statusIndent }.compactMap(\.key))
    }

    /// The mapping key of a line (`'201': …` → `201`), or nil for list items and scalars.
    private static func key(_ trimmed: String) -> String? {
        if trimmed.hasPrefix("- ") { return nil }
        var text = Substring(trimmed)
        var key: Substring
        if let quote = text.first, quote == "'" || quote == "\"" {
            text = text.dropFirst()
            guard let close = text.firstIndex(of: quote) else { return nil }
            key = text[..<close]
            text = text[text.index(after: close)...]
            guard text.first == ":" else { return nil }
        } else {
            guard let colon = text.firstIndex(where: { $0 == ":" }) else { return nil }
            let after = text.index(after: colon)
            guard after == text.endIndex || text[after] == " " else { return nil }
            key = text[..<colon]
        }
        return String(key)
    }
}

/// `openapi.yaml` agrees with the server: every route, exactly its methods, its status codes.
@Suite("openapi.yaml matches the server")
struct OpenAPISpecTests {
    static let routes: [String: Set<String>] = [
        "/healthz": ["get", "head"],
        "/openapi.yaml": ["get", "head"],
        "/v1/alerts": ["get", "head", "post"],
        "/v1/alerts/{id}": ["get", "head", "delete"],
        "/v1/alerts/{id}/response": ["get", "head", "post"],
        "/v1/events": ["get", "head"],
        "/v1/me": ["get", "head"],
        "/v1/answers": ["post"],
        "/v1/rules": ["get", "head", "post"],
        "/v1/rules/{name}": ["get", "head", "delete"],
        "/metrics": ["get", "head"],
        "/mcp": ["post"],
        "/app": ["get", "head"],
        "/app/app.css": ["get", "head"],
        "/app/sign-in": ["post"],
        "/app/sign-out": ["post"],
        "/app/link": ["get", "head", "post"],
        "/app/answer": ["post"],
        "/app/alerts/{id}": ["get", "head"],
        "/app/alerts/{id}/response": ["post"],
    ]

    /// Status codes the server can answer, per operation.
    static let statuses: [(path: String, method: String, codes: Set<String>)] = [
        ("/v1/alerts", "post", ["200", "201", "400", "413", "422", "429"]),
        ("/v1/alerts", "get", ["200", "400", "503"]),
        ("/v1/alerts", "head", ["200", "400", "503"]),
        ("/v1/alerts/{id}", "get", ["200", "400", "404", "503"]),
        ("/v1/alerts/{id}", "head", ["200", "400", "404", "503"]),
        ("/v1/alerts/{id}", "delete", ["200", "404", "409"]),
        ("/v1/alerts/{id}/response", "get", ["200", "204", "400", "404", "503"]),
        ("/v1/alerts/{id}/response", "head", ["200", "204", "400", "404", "503"]),
        ("/v1/alerts/{id}/response", "post", ["200", "202", "400", "404", "409", "413", "422"]),
        ("/healthz", "get", ["200"]),
        ("/healthz", "head", ["200"]),
        ("/openapi.yaml", "get", ["200"]),
        ("/openapi.yaml", "head", ["200"]),
        ("/v1/me", "get", ["200"]),
        ("/v1/answers", "post", ["200", "400", "413", "422"]),
        ("/v1/me", "head", ["200"]),
        ("/v1/events", "get", ["200", "400", "410", "503"]),
        ("/v1/events", "head", ["200", "400", "410", "503"]),
        ("/metrics", "get", ["200"]),
        ("/metrics", "head", ["200"]),
        ("/mcp", "post", ["200", "202", "400", "401", "403", "406", "413", "415", "429"]),
        ("/app", "get", ["200", "403"]),
        ("/app/sign-in", "post", ["303", "401", "403", "415"]),
        ("/app/sign-out", "post", ["303", "403", "415"]),
        ("/app/link", "get", ["200", "403"]),
        ("/app/link", "post", ["303", "403", "415"]),
        ("/app/answer", "post", ["200", "403", "404", "409", "422", "503"]),
        ("/app/alerts/{id}", "get", ["200", "403", "404", "503"]),
        ("/app/alerts/{id}/response", "post", ["200", "403", "404", "409", "415", "422", "503"]),
    ]

    func outline() throws -> OpenAPIOutline {
        OpenAPIOutline(String(decoding: try repositoryOpenAPI(), as: UTF8.self))
    }

    @Test("The outline reader understands indentation and quoting")
    func outlineReader() {
        let outline = OpenAPIOutline("""
            openapi: '3.1.0'
            info:
              title: x
            paths:
              /a:
                parameters:
                  - name: id
                get:
                  description: |
                    post: not a method
                  responses:
                    '200':
                      description: ok
                    "404":
                      description: no
                    500:
                      description: ouch
              '/b/{id}':
                delete:
                  responses:
                    default:
                      description: any
            components:
              schemas: {}
            """)
        #expect(outline.version == "3.1.0")
        #expect(outline.paths["/a"] == ["get": ["200", "404", "500"]])
        #expect(outline.paths["/b/{id}"] == ["delete": ["default"]])
        #expect(outline.paths.count == 2)
    }

    @Test("It is an OpenAPI 3.1 document")
    func version() throws {
        let text = String(decoding: try repositoryOpenAPI(), as: UTF8.self)
        #expect(text.hasPrefix("openapi: 3.1"), "starts with '\(text.prefix(20))'")
        #expect(try outline().version?.hasPrefix("3.1") == true)
    }

    /// Lines a YAML parser refuses or reads differently from how they look: a plain (unquoted)
    /// value holding `: ` or ` #`, outside block scalars. schemathesis and the generated client
    /// load the file with a real parser; this catches the usual slip without one.
    static func plainScalarSlips(_ text: String) -> [String] {
        var slips: [String] = []
        var blockIndent: Int?
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let indent = line.prefix { $0 == " " }.count
            if let block = blockIndent {
                if trimmed.isEmpty || indent > block { continue }
                blockIndent = nil
            }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            var body = Substring(trimmed)
            if body.hasPrefix("- ") { body = body.dropFirst(2) }
            guard let colon = body.range(of: ": ") else { continue }
            let value = body[colon.upperBound...].trimmingCharacters(in: .whitespaces)
            if let first = value.first, "|>".contains(first) {
                blockIndent = indent
                continue
            }
            guard let first = value.first, !"'\"[{&*!".contains(first) else { continue }
            if value.contains(": ") || value.hasSuffix(":") || value.contains(" #") {
                slips.append("line \(number + 1): \(trimmed)")
            }
        }
        return slips
    }

    @Test("A YAML parser reads every plain value as it looks (no ': ' or ' #' unquoted)")
    func plainScalars() throws {
        #expect(Self.plainScalarSlips("a:\n  description: one: two\n  b: |\n    fine: here\n  c: 'x: y'\n")
                    == ["line 2: description: one: two"])
        let slips = Self.plainScalarSlips(String(decoding: try repositoryOpenAPI(), as: UTF8.self))
        #expect(slips.isEmpty, "quote these values: \(slips)")
    }

    @Test("Every route the server has is a path, and there are no others")
    func pathsMatchRoutes() throws {
        let spec = try outline()
        #expect(Set(spec.paths.keys) == Set(Self.routes.keys),
                "spec paths: \(spec.paths.keys.sorted())")
    }

    @Test("Each path lists exactly the methods the server answers (its Allow, HEAD included)")
    func methodsMatchServer() async throws {
        let spec = try outline()
        try await LiveServer.with { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            for (path, expected) in Self.routes {
                let concrete = path.replacingOccurrences(of: "{id}", with: id)
                let refused = try await server.send("PATCH", concrete)
                #expect(refused.status == 405, "\(path)")
                let allow = Set((refused.headers["allow"] ?? "").split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces).lowercased()
                })
                #expect(allow == expected, "server allows \(allow.sorted()) on \(path)")
                let documented = Set(spec.paths[path]?.keys.map { $0 } ?? [])
                #expect(documented == allow, "spec documents \(documented.sorted()) on \(path); server: \(allow.sorted())")
            }
        }
    }

    @Test("No path in the spec is one the server 404s on; its GET and HEAD are served")
    func everySpecPathIsServed() async throws {
        let spec = try outline()
        try await LiveServer.with { server in
            let id = try await server.create(#"{"message":"hi"}"#)
            let rule = try await server.send("POST", "/v1/rules", body: #"{"name":"r","match":{"tag":9},"button":"OK"}"#)
            #expect(rule.status == 201)
            for (path, operations) in spec.paths {
                let concrete = path.replacingOccurrences(of: "{id}", with: id).replacingOccurrences(of: "{name}", with: "r")
                for method in operations.keys where method == "get" || method == "head" {
                    // The event stream never ends by itself: ask for its long-poll form.
                    let target = path == "/v1/events" ? concrete + "?wait=0" : concrete
                    let response = try await server.send(method.uppercased(), target)
                    #expect(response.status != 404 && response.status != 405,
                            "\(method.uppercased()) \(path): \(response.status)")
                    #expect(method == "get" || response.body.isEmpty, "HEAD \(path) has a body")
                }
                let refused = try await server.send("PATCH", concrete)
                #expect(refused.status == 405, "\(path) is not a route of the server (\(refused.status))")
            }
        }
    }

    @Test("Every status the server can return is documented under the operation", arguments: statuses)
    func statusesDocumented(path: String, method: String, codes: Set<String>) throws {
        let documented = try outline().paths[path]?[method] ?? []
        let missing = codes.subtracting(documented)
        #expect(missing.isEmpty, "\(method.uppercased()) \(path) does not document \(missing.sorted())")
    }
}
