import Foundation

/// RFC 3339 timestamps as alertd writes them, without `DateFormatter`: always UTC with milliseconds
/// (`2026-11-30T09:34:28.123Z`). alertd reads no timestamps; the tests' reader is `RFC3339.parse` in their support.
enum RFC3339 {
    /// 0000-01-01T00:00:00.000Z in milliseconds since 1970.
    private static let minimumMilliseconds: Int64 = -62_167_219_200_000
    /// 9999-12-31T23:59:59.999Z in milliseconds since 1970.
    private static let maximumMilliseconds: Int64 = 253_402_300_799_999
    /// Seconds from 1970 to 2001, `Date`'s reference date.
    static let referenceOffset: Int64 = 978_307_200

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

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value / divisor - (value % divisor < 0 ? 1 : 0)
        return (quotient, value - quotient * divisor)
    }
}
