/// A one-line message on the status line, until the next key press (or a newer notice).
struct Notice: Sendable, Equatable {
    enum Tone: Sendable, Equatable {
        case info
        case success
        case warning
    }

    var text: String
    var tone: Tone

    static func info(_ text: String) -> Notice { Notice(text: text, tone: .info) }
    static func success(_ text: String) -> Notice { Notice(text: text, tone: .success) }
    static func warning(_ text: String) -> Notice { Notice(text: text, tone: .warning) }
}
