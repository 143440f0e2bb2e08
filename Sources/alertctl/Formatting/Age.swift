import Foundation

/// Ages and times as people read them: "5s", "3m", "2h", "4d".
enum Age {
    /// Parses an RFC 3339 time as alertd writes it (`2026-11-30T09:34:28.123Z`, fractions optional).
    static func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        return try? Date(text, strategy: Date.ISO8601FormatStyle())
    }

    /// How long ago `text` was, compactly; "?" when it is not a time.
    static func text(since text: String, now: Date) -> String {
        guard let date = date(text) else { return "?" }
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "\(seconds)s"
        case ..<3600: return "\(seconds / 60)m"
        case ..<86400: return "\(seconds / 3600)h"
        default: return "\(seconds / 86400)d"
        }
    }

    /// The local time of day, `HH:mm:ss`, for `watch`.
    static func clock(_ date: Date) -> String {
        let components = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", components.hour ?? 0, components.minute ?? 0, components.second ?? 0)
    }
}
