import AlertModel

/// One alert on the heap; replaced, never mutated.
///
/// `AlertTable` keeps its alerts boxed (an `Alert` is 256 bytes, a box reference 8), and a `StoreImage` hands its
/// alerts over boxed, so a restore puts the journal's boxes into the table as they are instead of copying each alert.
public final class AlertBox: Sendable {
    public let alert: Alert

    public init(_ alert: Alert) {
        self.alert = alert
    }
}
