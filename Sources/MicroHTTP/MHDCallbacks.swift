import CMicroHTTPD

/// The C callbacks handed to libmicrohttpd. They live in a library enum, not in a
/// closure in `main`, so they are nonisolated: libmicrohttpd calls them on its own threads.
enum MHDCallbacks {
    /// `MHD_AccessHandlerCallback`: called once when headers are in, once per body chunk,
    /// once when the request is complete, and once more after each resume.
    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, data, size, context in
        guard let cls, let connection, let size, let context else { return .NO }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.access(
            connection: connection,
            method: method.map { String(cString: $0) } ?? "GET",
            url: url,
            upload: data,
            uploadSize: size,
            context: context
        )
    }

    /// `MHD_RequestCompletedCallback`: the request is over (answered, or the client left);
    /// releases the context retained on the first access call.
    static let completed: MHD_RequestCompletedCallback = { cls, _, context, _ in
        guard let cls, let context, let raw = context.pointee else { return }
        context.pointee = nil
        Unmanaged<ConnectionContext>.fromOpaque(raw).release()
        Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestCompleted()
    }

    /// `MHD_KeyValueIteratorN`: appends one header or query argument to a `KeyValueCollector`.
    static let collect: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        let collector = Unmanaged<KeyValueCollector>.fromOpaque(cls).takeUnretainedValue()
        let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
        let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
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
