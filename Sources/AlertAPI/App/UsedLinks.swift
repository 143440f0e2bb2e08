#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Locking

/// Where the single-alert links already used are recorded, so that a link works once across restarts (and, in a
/// cluster, across instances): the data dir's `UsedLinks`, or the cluster's record in PostgreSQL, wired by alertd.
/// `PageAccess` asks it before it honours a link, and does not know which it is.
public protocol LinkUseRecord: Sendable {
    /// The links used and not yet expired when alertd started, by nonce, that memory may refuse without asking.
    var restored: [String: Date] { get }
    /// Records the link `nonce` (valid until `expires`) used; returns once that is durable, or refused.
    func claim(_ nonce: String, expires: Date) -> LinkClaim
}

/// What recording a link's use found.
public enum LinkClaim: Sendable, Equatable {
    /// Its first use, now recorded.
    case claimed
    /// It was used before (in a cluster, maybe on another instance).
    case usedBefore
    /// The use could not be recorded: the link must not be honoured (it may be tried again).
    case unrecorded
}

/// The single-alert links already used, in the data dir beside `page-key` (`used-links`), so that a link works once
/// across a restart too. A line `NONCE EXPIRES` (Unix seconds) per used link, appended and synced with `fsync(2)`
/// before the link's use is answered; at start the file is read, the links that have expired meanwhile are dropped
/// (their links are refused as expired anyway) and it is rewritten with the rest, which also drops a line a crash
/// cut short.
public final class UsedLinks: LinkUseRecord {
    private let path: String
    private let descriptor: Lock<Int32>
    /// The links used and not yet expired when alertd started, by nonce.
    public let restored: [String: Date]

    /// Reads and compacts `directory/used-links`, made when missing.
    /// - Throws: `ConfigurationError` when it cannot be made or rewritten.
    public init(directory: String, now: Date = Date()) throws(ConfigurationError) {
        path = directory + "/used-links"
        var kept: [String: Date] = [:]
        let cutoff = now.timeIntervalSince1970
        for line in (DataFile.contents(of: path) ?? "").split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, fields[0].utf8.count <= 64, let expires = Int64(fields[1]),
                  TimeInterval(expires) > cutoff else { continue }
            kept[String(fields[0])] = Date(timeIntervalSince1970: TimeInterval(expires))
        }
        restored = kept
        let text = kept.map { "\($0.key) \(Int64($0.value.timeIntervalSince1970))\n" }.joined()
        guard let appending = DataFile.replace(path, with: text) else {
            throw DataFile.failure(path, "cannot write the record of used links")
        }
        descriptor = Lock(appending)
    }

    deinit {
        descriptor.withLock { _ = close($0) }
    }

    /// Records the link `nonce` used; returns once the record is on disk, or `unrecorded` when it could not be
    /// written or synced. (A second use is refused from memory before this is asked: one process holds the file.)
    public func claim(_ nonce: String, expires: Date) -> LinkClaim {
        let line = "\(nonce) \(Int64(expires.timeIntervalSince1970.rounded(.up)))\n"
        return descriptor.withLock { fd in DataFile.append(line, to: fd, sync: true) } ? .claimed : .unrecorded
    }
}
