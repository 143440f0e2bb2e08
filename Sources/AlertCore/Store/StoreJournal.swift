
/// Where the store sends its changes to be made durable: a journal commits them in the order given, and only then
/// are their effects (responses, wakes, events, webhook deliveries) released.
///
/// `AlertStore` calls `append` once per store turn that changed something, from its executor; the journal must
/// return at once (it commits on a thread of its own) and call `committed` exactly once per call, in call order.
public protocol StoreJournal: AnyObject, Sendable {
    /// Queues records for the next commit.
    ///
    /// - Parameters:
    ///   - records: The changes of one store turn, oldest first.
    ///   - committed: Called once, off the store's executor, after the transaction holding `records` committed
    ///     (`nil`) or failed (the failure). After a failure every later call fails too, without writing.
    func append(_ records: [JournalRecord], committed: @escaping @Sendable (JournalFailure?) -> Void)

    /// The failure that stops the journal taking writes, if one did: a failed commit, or one found before any (a
    /// journal opened on a full disk). Every `append` then fails.
    var failure: JournalFailure? { get }
}

extension StoreJournal {
    /// A journal that fails only in its commits.
    public var failure: JournalFailure? { nil }
}

/// One change the store made, as a journal writes it.
public enum JournalRecord: Sendable, Equatable {
    /// A pending alert was created; `event` is the change index its `created` event has. `idempotency` is the key
    /// and draft it was created with, if any: the key lives as long as the alert.
    case created(Alert, event: UInt64, idempotency: IdempotencyRecord?)
    /// A pending alert resolved: `alert.result` is set; `event` is its event's index (the kind follows from
    /// `alert.result.resolution`).
    case resolved(Alert, event: UInt64)
    /// A pending quorum alert got a vote (`alert.votes`); `event` is its `voted` event's index.
    case voted(Alert, event: UInt64)
    /// A pending alert took its next escalation step (`alert.escalated`, `alert.presenter`, `alert.policy`);
    /// `event` is its `escalated` event's index.
    case escalated(Alert, event: UInt64)
    /// The webhook delivery of the alert with this sequence number changed.
    case delivery(sequence: UInt64, WebhookDelivery)
    /// A rule that answers alerts was added (`AnswerRule`); the answers it gave follow as `resolved` records.
    case ruleAdded(AnswerRule)
    /// The rule with this name was removed.
    case ruleRemoved(name: String)
    /// Retention dropped the resolved alert with this sequence number, and its idempotency key with it.
    case dropped(sequence: UInt64)
}

/// An idempotency key with the draft it created an alert from.
public struct IdempotencyRecord: Sendable, Equatable {
    /// The owner the key belongs to (`nil`: nobody in particular).
    public var owner: String?
    /// The producer's key.
    public var key: String
    /// The draft as parsed, compared with a retry's.
    public var draft: AlertDraft

    public init(owner: String?, key: String, draft: AlertDraft) {
        self.owner = owner
        self.key = key
        self.draft = draft
    }
}

/// Why a commit failed; the journal takes no more writes after one.
public struct JournalFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for the log and for `/healthz` (no alert content).
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// The store as a journal last committed it: what a restart restores.
public struct StoreImage: Sendable {
    /// The instance identity: random, made when the data dir was first used, kept for its life.
    public var epoch: String
    /// Every kept alert, pending and resolved, in ascending sequence order (arrival order), boxed as the store keeps
    /// them.
    public var boxes: [AlertBox]
    /// `boxes`' alerts.
    public var alerts: [Alert] { boxes.map(\.alert) }
    /// The most recent events (at most the configured history), ascending by index.
    public var events: [AlertEvent]
    /// The change index: the index of the last event ever made (0 when none).
    public var changeIndex: UInt64
    /// Cursors below this index name events this image knows nothing of (0: none such): the index before its first
    /// event (those before were trimmed from the history), or the change index of a data dir restored from a backup,
    /// whose events belong to the timeline it left.
    public var historyFloor: UInt64 = 0
    /// Greater than every sequence number ever handed out.
    public var nextSequence: UInt64
    /// Idempotency keys still in force, with the sequence number of the alert each created.
    public var idempotency: [(record: IdempotencyRecord, sequence: UInt64)]
    /// The rules that answer alerts.
    public var rules: [AnswerRule] = []

    public init(
        epoch: String, boxes: [AlertBox] = [], events: [AlertEvent] = [], changeIndex: UInt64 = 0,
        nextSequence: UInt64 = 1, idempotency: [(record: IdempotencyRecord, sequence: UInt64)] = []
    ) {
        self.epoch = epoch
        self.boxes = boxes
        self.events = events
        self.changeIndex = changeIndex
        self.nextSequence = nextSequence
        self.idempotency = idempotency
    }
}
