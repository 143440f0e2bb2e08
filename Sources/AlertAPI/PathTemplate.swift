/// A path template with at most one parameter (`/v1/alerts/{id}/response`), matched against a path as sent,
/// byte by byte: a literal template is one string comparison, a template with a parameter a comparison of its
/// prefix and its suffix. The path is never split into pieces (splitting into `Character`s cost a tenth of a
/// request's time; docs/PERFORMANCE.md). Paths are not percent-decoded: an encoded `/` or NUL is part of a
/// parameter, never another route.
struct PathTemplate: Sendable {
    /// The template as written, a bounded label for metrics and logs.
    let text: String
    /// The bytes before the parameter; the whole template when it has none.
    private let prefix: String
    /// The bytes after the parameter; nil when it has none.
    private let suffix: String?

    init(_ text: String) {
        self.text = text
        let bytes = Array(text.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "{")),
              let close = bytes[open...].firstIndex(of: UInt8(ascii: "}"))
        else {
            (prefix, suffix) = (text, nil)
            return
        }
        prefix = String(decoding: bytes[..<open], as: UTF8.self)
        suffix = String(decoding: bytes[(close + 1)...], as: UTF8.self)
    }

    /// Whether `path` matches, and the parameter's value: empty for a literal template, else a non-empty segment
    /// without `/`.
    func match(_ path: String) -> Substring? {
        guard let suffix else { return path == prefix ? "" : nil }
        let bytes = path.utf8
        guard bytes.count > prefix.utf8.count + suffix.utf8.count, bytes.starts(with: prefix.utf8),
              bytes.reversed().starts(with: suffix.utf8.reversed())
        else { return nil }
        let start = bytes.index(bytes.startIndex, offsetBy: prefix.utf8.count)
        let end = bytes.index(bytes.endIndex, offsetBy: -suffix.utf8.count)
        let value = bytes[start..<end]
        guard !value.contains(UInt8(ascii: "/")) else { return nil }
        return Substring(value)
    }
}
