import Foundation

/// RFC 3339 timestamps, without `DateFormatter`.
///
/// Output is always UTC with milliseconds (`2026-11-30T09:34:28.123Z`). Input may omit the fraction or
/// carry any number of fraction digits (nanoseconds are kept, the rest is ignored), and may use a numeric
/// offset (`+02:00`, `-05:30`) instead of `Z`.
enum RFC3339 {
    /// 0000-01-01T00:00:00.000Z in milliseconds since 1970.
    private static let minimumMilliseconds: Int64 = -62_167_219_200_000
    /// 9999-12-31T23:59:59.999Z in milliseconds since 1970.
    private static let maximumMilliseconds: Int64 = 253_402_300_799_999
    /// Seconds from 1970 to 2001, `Date`'s reference date.
    private static let referenceOffset: Int64 = 978_307_200

    /// Formats `date` in UTC with milliseconds, rounded to the nearest millisecond and clamped to years
    /// 0000 through 9999.
    static func format(_ date: Date) -> String {
        // Both terms are whole numbers far below 2^53, so the sum is exact.
        let scaled = (date.timeIntervalSinceReferenceDate * 1000).rounded() + Double(referenceOffset * 1000)
        let milliseconds: Int64 = scaled.isNaN
            ? 0 : Int64(min(max(scaled, Double(minimumMilliseconds)), Double(maximumMilliseconds)))
        let (seconds, millisecond) = floorDivide(milliseconds, 1000)
        // Arithmetic, not gmtime_r: glibc's gmtime_r takes the process-wide tzset lock, and every request's
        // access-log line and every alert's dates come through here, on both HTTP threads.
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civilFromDays(Int(days))
        let hour = Int(secondOfDay) / 3600, minute = Int(secondOfDay) % 3600 / 60, second = Int(secondOfDay) % 60
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(hour, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(minute, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(second, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(Int(millisecond), 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

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

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468  // days from 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097  // [0, 146096]
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // [0, 399]
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // [0, 365], from March 1
        let monthFromMarch = (5 * dayOfYear + 2) / 153  // [0, 11]
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
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

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value / divisor - (value % divisor < 0 ? 1 : 0)
        return (quotient, value - quotient * divisor)
    }
}
