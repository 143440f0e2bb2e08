#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock times for people: `HH:MM:SS` in the local time zone.
enum ClockTime {
    /// The local time of an RFC 3339 UTC timestamp such as `2026-11-30T09:34:28.123Z`; the text itself when it
    /// is not one.
    static func local(fromRFC3339 text: String) -> String {
        let digits = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int32? {
            guard range.upperBound <= digits.count else { return nil }
            var value: Int32 = 0
            for byte in digits[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int32(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return text }
        var utc = tm()
        utc.tm_year = year - 1900
        utc.tm_mon = month - 1
        utc.tm_mday = day
        utc.tm_hour = hour
        utc.tm_min = minute
        utc.tm_sec = second
        var seconds = timegm(&utc)
        return format(&seconds)
    }

    /// The local time now.
    static func now() -> String {
        var seconds = time(nil)
        return format(&seconds)
    }

    private static func format(_ seconds: inout time_t) -> String {
        var local = tm()
        localtime_r(&seconds, &local)
        return [local.tm_hour, local.tm_min, local.tm_sec].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }
}
