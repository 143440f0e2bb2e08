import CMicroHTTPD

/// Answering what libmicrohttpd refuses itself (`LibraryRefusal`).
extension ServerCore {
    /// libmicrohttpd is about to queue its own page with `status` for the request arriving on `entry`'s
    /// connection. No response of this request was sent (libmicrohttpd reads a request only once the one
    /// before it was sent whole, and refuses it before any handler call could answer), so the handler's
    /// answer is written directly and the connection shut down (`ConnectionTracker.cut`): libmicrohttpd's
    /// page then fails to send and it closes the connection. A connection given up on already gets nothing
    /// more. libmicrohttpd's 500 is mapped too: it sends one when a handler leaves body bytes unread (`receive`
    /// reads them all) or, while a body arrives, when a chunk-size line or a trailer does not fit in the
    /// connection's memory, which is the client's doing.
    /// - Parameters:
    ///   - status: the status libmicrohttpd chose.
    ///   - page: the text of its page, which says which rule the request broke.
    func refusedByLibrary(_ entry: ConnectionTracker.Entry, connection: OpaquePointer, status: Int, page: String) {
        let (lineRead, method, path) = entry.state.withLock { ($0.headStarted != nil, $0.method, $0.path) }
        guard let failure = libraryFailure(status: status, page: page, lineRead: lineRead, headRead: method != nil)
        else { return }
        let head = HTTPRequestHead(method: method, path: path, headers: headers(of: connection),
                                   clientAddress: entry.client)
        tracker.cut(entry) { Self.wire(respond(to: failure, head)) }
    }

    /// What libmicrohttpd's refusal with `status` and `page` means.
    /// - Parameters:
    ///   - lineRead: whether the request line was read (the URI log callback ran for this request).
    ///   - headRead: whether the whole head was (the handler was called): its body is arriving.
    func libraryFailure(status: Int, page: String, lineRead: Bool, headRead: Bool) -> HTTPTransportFailure? {
        switch status {
        case 400 where page.contains("Content-Length"):
            .malformedRequest("Content-Length must be a single decimal number of bytes")
        case 400 where page.contains("chunked"):
            .malformedRequest("the chunked body is malformed: each chunk starts with its size in hex and a CRLF")
        case 400 where !lineRead:
            .malformedRequest("the request line must be a method, a target and HTTP/1.1, separated by single spaces")
        case 400:
            .malformedRequest("every header line must be a name, a colon and a value")
        // A Content-Length or a chunk size past 64 bits: a body larger than any alertd takes.
        case 413: .bodyTooLarge(limit: maxBodySize)
        // The request line or header lines do not fit in the connection's memory.
        case 414: .uriTooLong(limit: maxURLBytes)
        case 431: .headersTooLarge(limit: maxHeaderBytes)
        case 505: .versionNotSupported("only HTTP/1.1 and HTTP/1.0 are served")
        // A line of a chunked body (a chunk size with its extensions, a trailer) that fills the connection's memory.
        case 500 where headRead:
            .malformedRequest("a chunk-size line or a trailer field of the chunked body is longer than the "
                + "connection's memory (--connection-memory) holds")
        default: nil
        }
    }
}
