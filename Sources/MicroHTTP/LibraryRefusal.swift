import CMicroHTTPD
import Locking

/// The requests libmicrohttpd 0.9.75 refuses itself, before any callback of the application sees them:
/// a request line without `HTTP/1.x`, a header line without a colon, a `Content-Length` that is not a
/// number, a chunk size that is not hexadecimal or passes 64 bits, a head too large for the connection's
/// memory. It answers each in one function (`transmit_error_response_len`), which creates its HTML page
/// with `MHD_create_response_from_buffer` and queues it with `MHD_queue_response`, both through
/// libmicrohttpd's own import table; nothing else in it calls either but its authentication helpers,
/// which the transport does not use.
///
/// Those two slots of libmicrohttpd's table (not the application's: its calls of the same functions go
/// straight to libmicrohttpd) are pointed at `create` and `queue` once per process. `queue` hands the
/// refusal to the connection's server (`ServerCore.refusedByLibrary`), which writes its own answer and
/// shuts the socket down, then queues libmicrohttpd's page as libmicrohttpd meant to: libmicrohttpd goes on
/// exactly as before, and its page goes nowhere.
enum LibraryRefusal {
    /// Whether libmicrohttpd's refusals come here: the redirect is installed on first use, once per process.
    /// False where libmicrohttpd is not a shared object with relocated imports (then it answers them itself).
    static let installed: Bool = "MHD_create_response_from_buffer".withCString { createName in
        "MHD_queue_response".withCString { queueName in
            let pointer = UnsafeMutableRawPointer.self
            var imports = [
                CMicroHTTPD_import(symbol: createName, replacement: unsafeBitCast(create, to: pointer), slots: 0),
                CMicroHTTPD_import(symbol: queueName, replacement: unsafeBitCast(queue, to: pointer), slots: 0),
                CMicroHTTPD_import(symbol: nil, replacement: nil, slots: 0),
            ]
            CMicroHTTPD_redirect_imports(&imports)
            return imports[0].slots > 0 && imports[1].slots > 0
        }
    }

    /// The text of each page libmicrohttpd created and has not queued yet, by its response. It creates and
    /// queues one right after the other, on the connection's thread.
    private static let pages = Lock<[UInt: String]>([:])

    /// libmicrohttpd's `MHD_create_response_from_buffer`: creates the response, noting its page.
    private static let create: @convention(c) (Int, UnsafeMutableRawPointer?, MHD_ResponseMemoryMode)
        -> OpaquePointer? = { size, buffer, mode in
            let response = MHD_create_response_from_buffer(size, buffer, mode)
            if let response, let buffer {
                let page = String(decoding: UnsafeRawBufferPointer(start: buffer, count: size), as: UTF8.self)
                pages.withLock { $0[UInt(bitPattern: response)] = page }
            }
            return response
        }

    /// libmicrohttpd's `MHD_queue_response`: the connection's server answers first, then the page is queued.
    private static let queue: @convention(c) (OpaquePointer?, UInt32, OpaquePointer?) -> MHD_Result = {
        connection, status, response in
        let page = response.flatMap { created in pages.withLock { $0.removeValue(forKey: UInt(bitPattern: created)) } }
        if let connection, let raw = CMicroHTTPD_socket_context(connection) {
            let entry = Unmanaged<ConnectionTracker.Entry>.fromOpaque(raw).takeUnretainedValue()
            entry.server.refusedByLibrary(entry, connection: connection, status: Int(status), page: page ?? "")
        }
        return MHD_queue_response(connection, status, response)
    }
}
