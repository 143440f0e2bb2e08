import Foundation

/// Dates as the journal and the cluster's tables store them: integer milliseconds since 1970, rounded as the API's
/// RFC 3339 timestamps are, so a date read back formats to the same text it was served as.
public enum StoredTime {
    /// Milliseconds from 1970 to 2001, `Date`'s reference date.
    private static let referenceOffset: Int64 = 978_307_200_000

    /// `date` in whole milliseconds since 1970 (the nearest one).
    public static func milliseconds(_ date: Date) -> Int64 {
        let scaled = (date.timeIntervalSinceReferenceDate * 1000).rounded()
        guard scaled.isFinite, scaled.magnitude < 0x1p62 else { return scaled < 0 ? .min / 2 : .max / 2 }
        return Int64(scaled) + referenceOffset
    }

    /// The date of a millisecond count since 1970.
    public static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(milliseconds - referenceOffset) / 1000)
    }
}
