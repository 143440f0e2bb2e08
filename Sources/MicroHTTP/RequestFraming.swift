import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a request head says about its framing, read in one pass over its header lines when the head
/// is complete: the checks of RFC 9112 that libmicrohttpd 0.9.75 leaves out. It takes the first of
/// several `Content-Length`s, lets `Transfer-Encoding` win over `Content-Length` silently, waits for
/// the end of a body in a coding it does not know, keeps names with a space before the colon
/// (`Transfer-Encoding : chunked` is then no framing at all) and serves HTTP/1.1 without `Host`.
/// Behind a proxy that reads the head differently, each of these is a smuggled request.
struct RequestFraming {
    enum Coding: Equatable {
        case none
        case chunked
        /// `chunked` last, after codings the server does not decode (`gzip, chunked`).
        case unsupported
        /// A coding list that does not end with `chunked`: the body's end cannot be found.
        case unframed
    }

    /// Bytes of the header lines, as on the wire.
    private(set) var headerBytes = 0
    private(set) var contentLengths = 0
    /// The value of the only `Content-Length`, when it is one.
    private(set) var contentLength: UInt64?
    private(set) var transferEncodings = 0
    private(set) var coding = Coding.none
    private(set) var hosts = 0
    /// A field name that is not a token (RFC 9110 §5.1), such as `Transfer-Encoding ` with a space.
    private(set) var badName = false
    /// `Expect: 100-continue`.
    private(set) var expectsContinue = false

    /// Reads the header lines of `connection`.
    init(of connection: OpaquePointer) {
        withUnsafeMutablePointer(to: &self) { framing in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, Self.scan, framing)
        }
    }

    /// Whether a body follows the head.
    var hasBody: Bool {
        coding != .none || (contentLength ?? 0) > 0
    }

    /// Why the head cannot be served, or nil. Each answer closes the connection: after a head whose
    /// framing is in doubt, nothing on the connection can be trusted to be the next request.
    /// - Parameter version: the request line's HTTP version (libmicrohttpd accepts only `HTTP/1.x`).
    func failure(version: UnsafePointer<CChar>?) -> HTTPTransportFailure? {
        let http10 = version.map { strcmp($0, "HTTP/1.0") == 0 } ?? false
        if badName {
            return .malformedRequest("a header field name is not a token (is there a space before the colon?)")
        }
        if contentLengths > 0, transferEncodings > 0 {
            return .malformedRequest("a request may not have both Content-Length and Transfer-Encoding")
        }
        if contentLengths > 1 { return .malformedRequest("Content-Length is sent more than once") }
        if contentLengths == 1, contentLength == nil {
            return .malformedRequest("Content-Length must be a single decimal number of bytes")
        }
        if transferEncodings > 1 { return .malformedRequest("Transfer-Encoding is sent more than once") }
        if transferEncodings > 0, http10 {
            return .malformedRequest("HTTP/1.0 has no Transfer-Encoding; send Content-Length")
        }
        switch coding {
        case .unframed:
            return .malformedRequest("chunked must be the last transfer coding, or the body has no end")
        case .unsupported:
            return .unsupportedTransferCoding("only the chunked transfer coding is supported")
        case .none, .chunked:
            break
        }
        if hosts > 1 { return .malformedRequest("Host is sent more than once") }
        if hosts == 0, !http10 { return .malformedRequest("an HTTP/1.1 request must carry a Host header") }
        return nil
    }

    private mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        headerBytes += name.count + value.count + 4
        if !name.allSatisfy(Self.isTokenByte) || name.isEmpty { badName = true }
        let value = Self.trimmed(value)
        if Self.equalsLowercased(name, "content-length") {
            contentLengths += 1
            contentLength = Self.decimal(value)
        } else if Self.equalsLowercased(name, "transfer-encoding") {
            transferEncodings += 1
            coding = Self.coding(value)
        } else if Self.equalsLowercased(name, "host") {
            hosts += 1
        } else if Self.equalsLowercased(name, "expect") {
            expectsContinue = Self.equalsLowercased(value, "100-continue")
        }
    }

    /// `MHD_KeyValueIteratorN` over header lines; `cls` is the `RequestFraming` being filled.
    private static let scan: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
        guard let cls, let key else { return .YES }
        cls.assumingMemoryBound(to: RequestFraming.self).pointee.add(
            name: UnsafeRawBufferPointer(start: key, count: keySize),
            value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
        return .YES
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// `1*DIGIT` that fits in 19 digits, else nil.
    private static func decimal(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard (1...19).contains(bytes.count) else { return nil }
        var number: UInt64 = 0
        for byte in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            number = number * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return number
    }

    private static func coding(_ value: UnsafeRawBufferPointer) -> Coding {
        if equalsLowercased(value, "chunked") { return .chunked }
        let last = value.lastIndex(of: UInt8(ascii: ",")).map { value.index(after: $0) } ?? value.startIndex
        let final = trimmed(UnsafeRawBufferPointer(rebasing: value[last...]))
        return equalsLowercased(final, "chunked") ? .unsupported : .unframed
    }

    /// `bytes` without spaces and tabs at either end.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !blank($0) }),
              let last = bytes.lastIndex(where: { !blank($0) }) else { return UnsafeRawBufferPointer(rebasing: bytes[0..<0]) }
        return UnsafeRawBufferPointer(rebasing: bytes[first...last])
    }

    /// Whether `bytes` is `lowercase` ignoring ASCII case (`lowercase` has letters, digits and `-` only).
    private static func equalsLowercased(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return zip(bytes, expected).allSatisfy { $0 | 0x20 == $1 }
    }
}
