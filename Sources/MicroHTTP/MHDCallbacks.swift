import CMicroHTTPD

/// The C callbacks handed to libmicrohttpd. They live in a library enum, not in a
/// closure in `main`, so they are nonisolated: libmicrohttpd calls them on its own threads.
enum MHDCallbacks {
    /// `MHD_AccessHandlerCallback`: called once when headers are in, once per body chunk,
    /// once when the request is complete, and once more after each resume.
    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, version, data, size, context in
        guard let cls, let connection, let size, let context else { return .NO }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.access(
            connection: connection,
            method: method.map { String(cString: $0) } ?? "GET",
            url: url,
            version: version,
            upload: data,
            uploadSize: size,
            context: context
        )
    }

    /// `MHD_RequestCompletedCallback`: the request is over (answered, or the client left); runs its
    /// finish observers and releases the context retained on the first access call.
    static let completed: MHD_RequestCompletedCallback = { cls, connection, context, code in
        guard let cls else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        if let connection, let raw = CMicroHTTPD_socket_context(connection) {
            core.tracker.requestCompleted(Unmanaged<ConnectionTracker.Entry>.fromOpaque(raw).takeUnretainedValue())
        }
        guard let context, let raw = context.pointee else { return }
        context.pointee = nil
        let request = Unmanaged<ConnectionContext>.fromOpaque(raw)
        // MHD_REQUEST_TERMINATED_COMPLETED_OK: the whole response went out.
        core.requestCompleted(request.takeUnretainedValue(), completed: code.rawValue == 0)
        request.release()
    }

    /// `MHD_NotifyConnectionCallback`: registers each connection with the tracker when it is
    /// accepted (its id goes in the socket context) and drops it when it closes.
    static let connection: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
        guard let cls, let connection, let socketContext else { return }
        let tracker = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().tracker
        if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
            let client = CMicroHTTPD_client_address(connection).flatMap(SocketAddress.text(of:))
            let entry = tracker.opened(fd: CMicroHTTPD_connection_fd(connection), client: client)
            socketContext.pointee = Unmanaged.passRetained(entry).toOpaque()
        } else if let raw = socketContext.pointee {
            let entry = Unmanaged<ConnectionTracker.Entry>.fromOpaque(raw)
            tracker.closed(entry.takeUnretainedValue())
            entry.release()
            socketContext.pointee = nil
        }
    }

    /// The URI log callback: the request line is in, with its target as sent (libmicrohttpd decodes it
    /// after this call), so the head's deadline starts. Returns nil, which keeps `*con_cls` nil for the
    /// access handler's first call.
    static let requestLine: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?)
        -> UnsafeMutableRawPointer? = { cls, target, connection in
            guard let cls, let connection, let raw = CMicroHTTPD_socket_context(connection) else { return nil }
            let entry = Unmanaged<ConnectionTracker.Entry>.fromOpaque(raw).takeUnretainedValue()
            Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestLine(entry, target: target)
            return nil
        }

    /// `MHD_KeyValueIteratorN`: appends one header or query argument to a `KeyValueCollector`.
    /// Header values lose the spaces and tabs at their end (RFC 9110 §5.5; libmicrohttpd drops those
    /// at their start only).
    static let collect: MHD_KeyValueIteratorN = { cls, kind, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let collector = Unmanaged<KeyValueCollector>.fromOpaque(cls).takeUnretainedValue()
        let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
        var count = valueSize
        if kind == .HEADER_KIND, let value {
            while count > 0, value[count - 1] == 0x20 || value[count - 1] == 0x09 { count -= 1 }
        }
        let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: count), as: UTF8.self) }
        collector.pairs.append((name, text ?? ""))
        return .YES
    }
}

extension MHDCallbacks {
    /// `MHD_ContentReaderCallback` of a streamed body.
    static let readStream: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return -2 }
        return Unmanaged<HTTPBodyStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
    }

    /// `MHD_ContentReaderFreeCallback` of a streamed body: releases the retain taken when queuing.
    static let releaseStream: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let stream = Unmanaged<HTTPBodyStream>.fromOpaque(cls)
        stream.takeUnretainedValue().markClosed()
        stream.release()
    }
}

/// Receives key/value pairs from `MHD_get_connection_values_n` during one synchronous call.
final class KeyValueCollector {
    var pairs: [(String, String)] = []
}
