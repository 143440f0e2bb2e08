import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange as the client sees it.
struct HTTPExchange: Sendable {
    let status: Int
    let body: Data
    /// The server's instance identity (`X-Alertd-Instance`): it changes when a server without a data dir restarts.
    var instance: String? = nil
}

extension AlertClient {
    /// Builds the URL for `path` (such as `/v1/alerts`) below `baseURL`, with `query`.
    func url(_ path: String, query: [URLQueryItem] = []) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        var prefix = components.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        components.percentEncodedPath = prefix + path
        components.queryItems = query.isEmpty ? nil : query
        return components.url ?? baseURL
    }

    /// `id` as one path segment.
    func segment(_ id: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }

    /// Sends one request and returns the status and body; HTTP errors are *not* thrown here.
    /// - Parameters:
    ///   - method: `GET`, `POST` or `DELETE`.
    ///   - path: Path below `baseURL`, already encoded.
    ///   - query: Query items.
    ///   - body: JSON body, if any.
    ///   - wait: Seconds the server may hold the request; added to the time-out.
    ///   - headers: Extra request headers.
    func exchange(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, wait: Int = 0,
        headers: [String: String] = [:]
    ) async throws(AlertClientError) -> HTTPExchange {
        var request = URLRequest(url: url(path, query: query))
        request.httpMethod = method
        request.timeoutInterval = requestTimeout + TimeInterval(wait)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if Task.isCancelled { throw .cancelled }
        do {
            let exchange = try await perform(request)
            if let instance = exchange.instance { firstInstance.withLock { $0 = $0 ?? instance } }
            return exchange
        } catch let error as URLError {
            throw Self.classify(error)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .unreachable(String(describing: error))
        }
    }

    /// Runs a data task, cancelling it when the calling Task is cancelled.
    private func perform(_ request: URLRequest) async throws -> HTTPExchange {
        let slot = TaskSlot()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPExchange, any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let http = response as? HTTPURLResponse {
                        continuation.resume(returning: HTTPExchange(
                            status: http.statusCode, body: data ?? Data(),
                            instance: http.value(forHTTPHeaderField: "X-Alertd-Instance")))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                if slot.install(task) {
                    task.resume()
                } else {
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            slot.cancel()
        }
    }

    /// Maps a URLSession error onto the client's error kinds.
    static func classify(_ error: URLError) -> AlertClientError {
        switch error.code {
        case .cancelled:
            return .cancelled
        case .timedOut:
            return .timedOut
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            return .invalidResponse(error.localizedDescription)
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .unsupportedURL,
             .badURL:
            return .unreachable(Self.reason(error), connected: false)
        default:
            return .unreachable(Self.reason(error))
        }
    }

    /// A short reason for a connection failure, such as "connection refused".
    private static func reason(_ error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: "could not connect (connection refused?)"
        case .networkConnectionLost: "the connection was lost"
        case .cannotFindHost, .dnsLookupFailed: "unknown host"
        case .notConnectedToInternet: "no network"
        case .unsupportedURL, .badURL: "unsupported URL"
        default: error.localizedDescription
        }
    }

    // MARK: decoding

    /// Decodes a success body as `T`, or throws the HTTP error the exchange carries.
    func decode<T: Decodable>(_ type: T.Type, _ exchange: HTTPExchange, expecting statuses: Set<Int> = [200])
        throws(AlertClientError) -> T
    {
        try check(exchange, expecting: statuses)
        do {
            return try JSONDecoder().decode(T.self, from: exchange.body)
        } catch {
            throw .invalidResponse("cannot decode \(T.self) (HTTP \(exchange.status)): \(error)")
        }
    }

    /// Throws `.server` for an HTTP error, `.invalidResponse` for any other status not in `expected`.
    func check(_ exchange: HTTPExchange, expecting expected: Set<Int>) throws(AlertClientError) {
        if expected.contains(exchange.status) { return }
        if exchange.status >= 400 {
            let problem = try? JSONDecoder().decode(Problem.self, from: exchange.body)
            throw .server(status: exchange.status, problem: problem)
        }
        throw .invalidResponse("unexpected HTTP \(exchange.status)")
    }

    /// Encodes a request body.
    func encode<T: Encodable>(_ value: T) throws(AlertClientError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw .invalidResponse("cannot encode the request: \(error)")
        }
    }
}
