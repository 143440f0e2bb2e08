import Foundation
import MicroHTTP

/// Echoes the request: method, path, query and body length, at once or after `?delay=ms`
/// on a suspended connection. `/never` defers work that only ends when cancelled by shutdown.
struct EchoHandler: HTTPHandler {
    func handle(_ request: HTTPRequest) -> HTTPReply {
        let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let text = "\(request.method) \(request.path) ?\(query) body=\(request.body.count)"
        let response = HTTPResponse.text(200, text)
        if request.path == "/stream" {
            let count = request.queryValue("n").flatMap(Int.init) ?? 3
            return .stream(HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"])) { stream in
                for index in 0..<count {
                    try? await Task.sleep(for: .milliseconds(20))
                    stream.write(Array("data: \(index)\n\n".utf8))
                }
                if count > 0 { stream.finish(with: Array("data: end\n\n".utf8)) }
                // count == 0: an endless stream, ended only by the server's shutdown.
            }
        }
        if request.path == "/twice" {
            // Deferred work whose reply is more deferred work: suspends, resumes, suspends again.
            return .deferred {
                .deferred { .response(.text(200, "second")) }
            }
        }
        if request.path == "/never" {
            return .deferred {
                try? await Task.sleep(for: .seconds(3600))
                return .response(.text(200, "woke"))
            }
        }
        guard let delay = request.queryValue("delay").flatMap(Int.init) else { return .response(response) }
        return .deferred {
            try? await Task.sleep(for: .milliseconds(delay))
            return .response(response)
        }
    }
}

/// Starts an `HTTPServer` on port 0 with `handler` (`EchoHandler` by default); the caller shuts it down.
func startTestServer(
    handler: any HTTPHandler = EchoHandler(), _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
) throws -> HTTPServer {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configure(&configuration)
    return try HTTPServer(configuration: configuration, handler: handler)
}

/// Starts an `HTTPServer` on port 0 with `handler` (`EchoHandler` by default), runs `body`, shuts it down.
func withEchoServer(
    handler: any HTTPHandler = EchoHandler(),
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    _ body: (HTTPServer) async throws -> Void
) async throws {
    let server = try startTestServer(handler: handler, configure)
    do {
        try await body(server)
    } catch {
        await server.shutdown(grace: .seconds(1))
        throw error
    }
    await server.shutdown(grace: .seconds(1))
}

/// The idle timeout (and head timeout) of the servers in tests that compare a refusal "at once", or at a shorter
/// deadline, with it (`TestTime.sooner(than:)`): long, so that a loaded machine cannot be mistaken for a timeout.
let idleTimeout = 60.0

/// Sets the idle and head timeouts to `idleTimeout`, then applies `configure`.
func withLongTimeouts(
    _ configure: @escaping (inout HTTPServerConfiguration) -> Void = { _ in }
) -> (inout HTTPServerConfiguration) -> Void {
    { configuration in
        configuration.idleTimeout = Int(idleTimeout)
        configuration.headerTimeout = Int(idleTimeout)
        configure(&configuration)
    }
}
