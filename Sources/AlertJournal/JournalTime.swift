import AlertCodec
import Foundation

/// Dates as the journal stores them: `StoredTime`'s whole milliseconds since 1970, the same as the cluster's tables.
typealias JournalTime = StoredTime

/// A row the journal cannot turn back into a value: the file was damaged or written by something else. The journal's
/// JSON columns are read by the codec the cluster shares (`AlertCodec`), so its errors are the codec's.
typealias JournalDecodingError = StoredValueError

extension SQLiteJournal {
    /// `date` as the journal keeps it: the nearest whole millisecond (the API's precision). A store that makes its
    /// dates with this restores alerts equal to the ones it served.
    public static func storedDate(_ date: Date) -> Date {
        JournalTime.date(JournalTime.milliseconds(date))
    }
}
