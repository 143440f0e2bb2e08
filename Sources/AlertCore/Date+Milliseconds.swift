import AlertModel
import Foundation

extension Date {
    /// Now, to the nearest millisecond: the precision of the API's timestamps and of the journal, so an alert
    /// restored after a restart equals the one served before it.
    static var storeNow: Date { Date().millisecondPrecise }

    /// This date to the nearest millisecond.
    var millisecondPrecise: Date {
        Date(timeIntervalSinceReferenceDate: (timeIntervalSinceReferenceDate * 1000).rounded() / 1000)
    }
}
