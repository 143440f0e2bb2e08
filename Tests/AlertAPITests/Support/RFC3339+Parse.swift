@testable import AlertAPI
import Foundation

/// Reading RFC 3339 timestamps, for checking what alertd writes: input may omit the fraction or carry any number of
/// fraction digits (nanoseconds are kept, the rest is ignored), and may use a numeric offset (`+02:00`, `-05:30`)
/// instead of `Z`.
extension RFC3339 {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `T` and `Z` may be lower case. A leap second
    /// (`:60`) counts as the first second of the next minute.
    ///
    /// - Returns: the date, or `nil` if `string` is not a valid RFC 3339 date-time.
    static func parse(_ string: String) -> Date? {
        var string = string
        return string.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        func number(_ offset: Int, _ width: Int) -> Int? {
            guard offset + width <= bytes.count else { return nil }
            var value = 0
            for index in offset..<offset + width {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        func byte(_ offset: Int, _ allowed: String) -> Bool {
            offset < bytes.count && allowed.utf8.contains(bytes[offset])
        }
        guard let year = number(0, 4), byte(4, "-"), let month = number(5, 2), byte(7, "-"),
            let day = number(8, 2), byte(10, "Tt"), let hour = number(11, 2), byte(13, ":"),
            let minute = number(14, 2), byte(16, ":"), let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day),
            hour < 24, minute < 60, second <= 60
        else { return nil }

        var offset = 19
        var nanoseconds = 0
        if byte(offset, ".") {
            offset += 1
            let fractionStart = offset
            while offset < bytes.count, let digit = number(offset, 1) {
                if offset - fractionStart < 9 {
                    nanoseconds = nanoseconds * 10 + digit
                }
                offset += 1
            }
            guard offset > fractionStart else { return nil }
            for _ in min(offset - fractionStart, 9)..<9 {
                nanoseconds *= 10
            }
        }

        var zoneSeconds = 0
        if byte(offset, "Zz") {
            offset += 1
        } else if byte(offset, "+-") {
            guard let zoneHour = number(offset + 1, 2), byte(offset + 3, ":"),
                let zoneMinute = number(offset + 4, 2), zoneHour < 24, zoneMinute < 60
            else { return nil }
            zoneSeconds = (zoneHour * 3600 + zoneMinute * 60) * (bytes[offset] == UInt8(ascii: "-") ? -1 : 1)
            offset += 6
        } else {
            return nil
        }
        guard offset == bytes.count else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days * 86_400 + hour * 3600 + minute * 60 + second - zoneSeconds)
        return Date(
            timeIntervalSinceReferenceDate: Double(seconds - referenceOffset) + Double(nanoseconds) / 1e9)
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
