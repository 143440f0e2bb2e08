import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a request: its limits, its body, its headers and query.
extension ServerCore {
    /// The request line is in (libmicrohttpd's URI log callback, before it decodes anything): keeps the
    /// path as sent, for the handler and for the head's deadline, and cuts a target that is too long
    /// or has bytes RFC 3986 does not allow (a space, a control character, non-ASCII). libmicrohttpd
    /// is not writing to the connection, so the answer is written directly; a target near
    /// `connectionMemory` leaves libmicrohttpd too little memory to answer, or to go on at all.
    func requestLine(_ entry: ConnectionTracker.Entry, target: UnsafePointer<CChar>?) {
        let bytes = UnsafeRawBufferPointer(start: target, count: target.map { strlen($0) } ?? 0)
        let path = String(decoding: bytes.prefix { $0 != UInt8(ascii: "?") }, as: UTF8.self)
        tracker.headStarted(entry, path: path)
        let failure: HTTPTransportFailure? =
            if bytes.count > maxURLBytes {
                .uriTooLong(limit: maxURLBytes)
            } else if Self.queryParameters(in: bytes) > maxQueryParameters {
                .tooManyQueryParameters(limit: maxQueryParameters)
            } else if bytes.isEmpty || !bytes.allSatisfy({ (0x21...0x7E).contains($0) }) {
                .malformedRequest("the request target is empty or has a space, a control or a non-ASCII byte")
            } else {
                nil
            }
        guard let failure else { return }
        tracker.cut(entry) { Self.wire(respond(to: failure, HTTPRequestHead(path: path, clientAddress: entry.client))) }
    }

    /// How many `&`-separated parameters the target's query holds, as libmicrohttpd splits it (each takes an entry
    /// of the connection's memory: 200 of them filled 8 KiB, and libmicrohttpd answered its own 431).
    static func queryParameters(in target: UnsafeRawBufferPointer) -> Int {
        guard let mark = target.firstIndex(of: UInt8(ascii: "?")) else { return 0 }
        return 1 + target[(mark + 1)...].count { $0 == UInt8(ascii: "&") }
    }

    /// Collects a body chunk; past the limit, drops the body and remembers to answer 413.
    func receive(
        _ upload: UnsafePointer<CChar>?, count: UnsafeMutablePointer<Int>, into request: ConnectionContext
    ) -> MHD_Result {
        let size = count.pointee
        count.pointee = 0
        if request.tooLarge || request.body.count + size > maxBodySize {
            request.tooLarge = true
            request.body = []
            request.discarded += size
            // A chunked body has no length to refuse up front; stop reading it eventually.
            return request.discarded > 16 * maxBodySize ? .NO : .YES
        }
        if let upload {
            request.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: size))
        }
        return .YES
    }

    /// The header fields, names lower-cased.
    func headers(of connection: OpaquePointer) -> HTTPHeaders {
        HTTPHeaders(values(of: .HEADER_KIND, on: connection).map { ($0.0.lowercased(), $0.1) })
    }

    /// The query parameters, percent-decoded.
    func query(of connection: OpaquePointer) -> [HTTPRequest.QueryItem] {
        values(of: .GET_ARGUMENT_KIND, on: connection).map { .init(name: $0.0, value: $0.1) }
    }

    func values(of kind: MHD_ValueKind, on connection: OpaquePointer) -> [(String, String)] {
        let collector = KeyValueCollector()
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values_n(connection, kind, MHDCallbacks.collect,
                                            Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.pairs
    }
}
