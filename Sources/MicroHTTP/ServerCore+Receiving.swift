import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a request: its limits, its body, its headers and query.
extension ServerCore {
    /// A request target or header lines over their limits (libmicrohttpd answers heads that do
    /// not fit the connection's memory itself, before the handler sees them).
    func refusal(of connection: OpaquePointer, url: UnsafePointer<CChar>?) -> HTTPTransportFailure? {
        let target = (url.map { strlen($0) } ?? 0) + CMicroHTTPD_values_size(connection, .GET_ARGUMENT_KIND)
        if target > maxURLBytes { return .uriTooLong(limit: maxURLBytes) }
        if CMicroHTTPD_values_size(connection, .HEADER_KIND) > maxHeaderBytes {
            return .headersTooLarge(limit: maxHeaderBytes)
        }
        return nil
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

    func header(_ name: String, of connection: OpaquePointer) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
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
