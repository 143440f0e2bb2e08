#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AlertCore
import Locking

/// Where the notifications not yet done are kept, so that they are sent again after a restart (and, in a cluster,
/// by another instance): the data dir's `NotifyOutbox`, or the cluster's outbox in PostgreSQL, wired by alertd.
/// The `Notifier` tells it, and does not know which it is.
public protocol NotifyRecord: Sendable {
    /// The alert's notifications start, before its create is answered.
    func started(_ id: AlertID)
    /// Every target had its last attempt at the alert's notification.
    func finished(_ id: AlertID)
}

/// The notifications not yet done, in the data dir (`notify-outbox`), so that a restart sends them again: at least
/// once across a restart. A line `+ID` when an alert's notifications start, `-ID` once every target has had its
/// last attempt; at start the file is read, compacted to the alerts still outstanding, and those still pending
/// are notified again (a target may then get one twice). Written with `write(2)` in append mode and not synced:
/// it survives alertd being killed, not the machine losing power between a create and its notification.
public final class NotifyOutbox: NotifyRecord {
    private let path: String
    private let descriptor: Lock<Int32>
    /// The alerts outstanding when alertd started, oldest first.
    public let outstanding: [AlertID]

    /// Reads and compacts `directory/notify-outbox`, made when missing.
    /// - Throws: `ConfigurationError` when it cannot be made, read or rewritten.
    public init(directory: String) throws(ConfigurationError) {
        path = directory + "/notify-outbox"
        var waiting: [String] = []
        var seen = Set<String>()
        if let text = DataFile.contents(of: path) {
            for line in text.split(separator: "\n") where line.count > 1 {
                let id = String(line.dropFirst())
                if line.first == "+", seen.insert(id).inserted {
                    waiting.append(id)
                } else if line.first == "-", seen.remove(id) != nil {
                    waiting.removeAll { $0 == id }
                }
            }
        }
        outstanding = waiting.map { AlertID(rawValue: $0) }
        let compacted = waiting.map { "+\($0)\n" }.joined()
        guard let appending = DataFile.replace(path, with: compacted) else {
            throw DataFile.failure(path, "cannot write the notification outbox")
        }
        descriptor = Lock(appending)
    }

    deinit {
        descriptor.withLock { _ = close($0) }
    }

    public func started(_ id: AlertID) {
        append("+\(id.rawValue)\n")
    }

    public func finished(_ id: AlertID) {
        append("-\(id.rawValue)\n")
    }

    private func append(_ line: String) {
        _ = descriptor.withLock { fd in DataFile.append(line, to: fd, sync: false) }
    }
}
