@testable import MicroHTTP

/// One fuzz input, split the way an HTTP request is (see AlertFuzz.swift for the format), and decoded
/// the way libmicrohttpd hands a request to `ServerCore`.
struct FuzzInput {
    /// The request target's path, percent-decoded and cut at a decoded NUL (libmicrohttpd passes a C string).
    var path: String
    /// The query arguments in order: split at `&` and the first `=`, `+` as space, percent-decoded.
    var query: [HTTPRequest.QueryItem]
    /// `Name: value` lines, names lower-cased as `ServerCore` does.
    var headers: HTTPHeaders
    /// The create body (`POST /v1/alerts`).
    var createBody: [UInt8]
    /// The answer body (`POST /v1/alerts/{id}/response`).
    var answerBody: [UInt8]

    /// The line that ends the create body and starts the answer body: `\n---\n`. It never occurs in
    /// valid JSON (a bare `-` must start a number), so no JSON body is out of reach.
    static let separator = Array("\n---\n".utf8)

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var lines = Lines(bytes: bytes[...])
        let target = lines.next() ?? bytes[bytes.endIndex...]
        let question = target.firstIndex(of: UInt8(ascii: "?"))
        path = Self.pathString(Self.percentDecoded(target[..<(question ?? target.endIndex)], plusIsSpace: false))
        query = question.map { Self.queryItems(target[target.index(after: $0)...]) } ?? []
        var pairs: [(String, String)] = []
        while let line = lines.next(), !line.isEmpty {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            let value = line[line.index(after: colon)...].drop { $0 == 32 || $0 == 9 }
            pairs.append((name, String(decoding: value, as: UTF8.self)))
        }
        headers = HTTPHeaders(pairs)
        let bodies = lines.rest
        if let split = Self.firstRange(of: Self.separator, in: bodies) {
            createBody = Array(bodies[..<split.lowerBound])
            answerBody = Array(bodies[split.upperBound...])
        } else {
            createBody = Array(bodies)
            answerBody = []
        }
    }

    /// Lines ending in LF (a CR before it is dropped); `rest` is what follows the lines taken.
    struct Lines {
        var rest: Slice<UnsafeBufferPointer<UInt8>>

        init(bytes: Slice<UnsafeBufferPointer<UInt8>>) {
            rest = bytes
        }

        mutating func next() -> Slice<UnsafeBufferPointer<UInt8>>? {
            guard !rest.isEmpty else { return nil }
            guard let newline = rest.firstIndex(of: 10) else {
                defer { rest = rest[rest.endIndex...] }
                return rest
            }
            var line = rest[..<newline]
            rest = rest[rest.index(after: newline)...]
            if line.last == 13 { line = line.dropLast() }
            return line
        }
    }

    private static func firstRange(
        of needle: [UInt8], in haystack: Slice<UnsafeBufferPointer<UInt8>>
    ) -> Range<Int>? {
        guard haystack.count >= needle.count else { return nil }
        var start = haystack.startIndex
        while start + needle.count <= haystack.endIndex {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return start..<start + needle.count }
            start += 1
        }
        return nil
    }

    /// libmicrohttpd's `MHD_parse_arguments_`: `&`-separated, name and value split at the first `=`,
    /// a missing value is empty; `+` becomes a space and `%XX` a byte in both.
    private static func queryItems(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> [HTTPRequest.QueryItem] {
        text.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { argument in
            let equals = argument.firstIndex(of: UInt8(ascii: "="))
            let name = percentDecoded(argument[..<(equals ?? argument.endIndex)], plusIsSpace: true)
            let value = equals.map { percentDecoded(argument[argument.index(after: $0)...], plusIsSpace: true) } ?? []
            return HTTPRequest.QueryItem(
                name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
    }

    /// `%XX` decoded (a malformed escape stays as it is), optionally `+` as a space.
    private static func percentDecoded(_ text: Slice<UnsafeBufferPointer<UInt8>>, plusIsSpace: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "%"), index + 2 < text.endIndex,
               let high = hex(text[index + 1]), let low = hex(text[index + 2]) {
                output.append(high << 4 | low)
                index += 3
                continue
            }
            output.append(plusIsSpace && byte == UInt8(ascii: "+") ? 32 : byte)
            index += 1
        }
        return output
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The path as `String(cString:)` reads libmicrohttpd's decoded URL: up to a NUL, invalid UTF-8 repaired.
    private static func pathString(_ bytes: [UInt8]) -> String {
        String(decoding: bytes[..<(bytes.firstIndex(of: 0) ?? bytes.endIndex)], as: UTF8.self)
    }
}
