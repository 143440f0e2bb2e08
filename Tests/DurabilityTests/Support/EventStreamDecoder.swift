import HTTPTestSupport

/// Decodes an HTTP/1.1 response carrying Server-Sent Events, incrementally: the head, chunked framing, then the
/// SSE fields (https://html.spec.whatwg.org/multipage/server-sent-events.html). A response that is not chunked (an
/// error) is read whole by its `Content-Length` and ends the decoding.
struct EventStreamDecoder {
    enum Item {
        /// The response head (with its whole body when it is not a stream).
        case head(WireResponse)
        /// A dispatched message: a block with `data`.
        case message(id: String?, type: String, data: String)
    }

    /// The body ended (the last chunk, or the whole body of a response that is not a stream).
    private(set) var ended = false
    private var pending: [UInt8] = []
    private var head: WireResponse?
    private var chunked = false
    /// Bytes left in the current chunk (then its CRLF), or nil when a chunk-size line comes next.
    private var chunkLeft: Int?
    private var line: [UInt8] = []
    private var id: String?
    private var type: String?
    private var data: [String] = []

    mutating func feed(_ bytes: ArraySlice<UInt8>) throws -> [Item] {
        pending += bytes
        var items: [Item] = []
        if head == nil {
            guard let end = pending.firstRange(of: [13, 10, 13, 10])?.upperBound else { return [] }
            var response = try RawHTTP.parse(Array(pending[..<end]))
            chunked = response.headers["transfer-encoding"]?.lowercased().contains("chunked") == true
            if !chunked {
                let length = response.headers["content-length"].flatMap(Int.init) ?? 0
                guard pending.count >= end + length else { return [] }
                response.body = Array(pending[end..<(end + length)])
                ended = true
                return [.head(response)]
            }
            pending.removeFirst(end)
            head = response
            items.append(.head(response))
        }
        while !ended {
            if let left = chunkLeft {
                if left == 0 {
                    guard pending.count >= 2 else { break }
                    pending.removeFirst(2)  // the CRLF after a chunk's data
                    chunkLeft = nil
                    continue
                }
                guard !pending.isEmpty else { break }
                let take = min(left, pending.count)
                items += lines(pending[..<take])
                pending.removeFirst(take)
                chunkLeft = left - take
                continue
            }
            guard let crlf = pending.firstRange(of: [13, 10]) else { break }
            let sizeText = String(decoding: pending[..<crlf.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
                throw RawHTTPError(description: "bad chunk size '\(sizeText)'")
            }
            pending.removeFirst(crlf.upperBound)
            if size == 0 { ended = true } else { chunkLeft = size }
        }
        return items
    }

    /// Splits body bytes into lines (alertd ends lines with LF) and lines into messages.
    private mutating func lines(_ bytes: ArraySlice<UInt8>) -> [Item] {
        var items: [Item] = []
        for byte in bytes {
            guard byte == 10 else {
                if byte != 13 { line.append(byte) }
                continue
            }
            if let item = take(String(decoding: line, as: UTF8.self)) { items.append(item) }
            line.removeAll(keepingCapacity: true)
        }
        return items
    }

    /// One complete line: a field, a comment, or the blank line that dispatches a block.
    private mutating func take(_ line: String) -> Item? {
        if line.isEmpty {
            defer { id = nil; type = nil; data = [] }
            // A block without data (the opening `retry:`, say) dispatches nothing.
            return data.isEmpty ? nil : .message(id: id, type: type ?? "message", data: data.joined(separator: "\n"))
        }
        if line.hasPrefix(":") { return nil }
        let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        var value = parts.count > 1 ? parts[1] : ""
        if value.hasPrefix(" ") { value = value.dropFirst() }
        switch parts[0] {
        case "id": id = String(value)
        case "event": type = String(value)
        case "data": data.append(String(value))
        default: break
        }
        return nil
    }
}
