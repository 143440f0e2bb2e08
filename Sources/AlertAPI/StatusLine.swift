/// Reads the final status out of the start of an HTTP/1.x answer, skipping interim (1xx) answers.
enum StatusLine: Equatable {
    /// The first status that is not 1xx.
    case status(Int)
    /// More bytes are needed.
    case incomplete
    /// Not an HTTP/1.x answer.
    case invalid

    /// - Parameter bytes: the answer so far.
    static func parse(_ bytes: [UInt8]) -> StatusLine {
        let version = Array("HTTP/1.".utf8)
        let lineEnd: [UInt8] = [13, 10]
        var start = 0
        while true {
            let available = bytes[start...].prefix(version.count)
            guard available.elementsEqual(version.prefix(available.count)) else { return .invalid }
            guard let end = firstIndex(of: lineEnd, in: bytes, from: start) else { return .incomplete }
            let line = bytes[start..<end]
            // "HTTP/1.1 200" then, optionally, " reason".
            guard line.count >= 12, line[start + 8] == UInt8(ascii: " "),
                  line[(start + 9)..<(start + 12)].allSatisfy({ (0x30...0x39).contains($0) }),
                  line.count == 12 || line[start + 12] == UInt8(ascii: " ")
            else { return .invalid }
            let status = line[(start + 9)..<(start + 12)].reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard (100..<200).contains(status) else { return .status(status) }
            guard let headEnd = firstIndex(of: lineEnd + lineEnd, in: bytes, from: start) else { return .incomplete }
            start = headEnd + 4
        }
    }

    private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= start + pattern.count else { return nil }
        return (start...(bytes.count - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
