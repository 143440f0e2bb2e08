import AlertCore
import Foundation
import JSON
import Locking

/// Where `--notify` and `--notify-webhook` send every new alert.
public struct NotifyTarget: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// ntfy's JSON publishing: POSTed to the server's root with the topic in the body.
        case ntfy(topic: String)
        /// alertd's own JSON: the alert, its link and its answer links.
        case webhook
    }

    let kind: Kind
    /// Where the POST goes, without the user information the URL was given with.
    let url: CallbackURL
    /// The `user:password` the URL was given with, as the Basic credential of this target alone.
    let own: NotifyCredential?

    private init(kind: Kind, url: CallbackURL) {
        self.kind = kind
        (self.url, own) = url.withoutUserinfo
    }

    /// `--notify URL`: an ntfy topic URL, `http[s]://[user:password@]host[:port][/prefix]/TOPIC`.
    public static func ntfy(_ text: String) -> NotifyTarget? {
        guard let parsed = try? CallbackURL(parsing: text), parsed.query == nil,
              let slash = text.lastIndex(of: "/") else { return nil }
        let topic = String(text[text.index(after: slash)...])
        guard (1...64).contains(topic.count),
              topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
              let root = try? CallbackURL(parsing: String(text[...slash])) else { return nil }
        return NotifyTarget(kind: .ntfy(topic: topic), url: root)
    }

    /// `--notify-webhook URL`.
    public static func webhook(_ text: String) -> NotifyTarget? {
        (try? CallbackURL(parsing: text)).map { NotifyTarget(kind: .webhook, url: $0) }
    }

    /// `text` as a message may show it: a URL's user information (a `--notify` or `--database` password) as `***`.
    public static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<scheme.upperBound]) + "***" + String(rest[at...])
    }

    /// The credential this target is sent: its URL's own, else (for ntfy) `--notify-token-file`'s.
    func credential(_ shared: NotifyCredential?) -> NotifyCredential? {
        switch kind {
        case .ntfy: own ?? shared
        case .webhook: own
        }
    }
}

/// What alertd presents to ntfy when a topic needs it (`--notify-token-file`, `ALERTD_NOTIFY_TOKEN`, or a
/// `--notify` URL's `user:password`): an access token (`tk_…`), sent as `Authorization: Bearer`, or `user:password`,
/// sent as `Authorization: Basic`, as ntfy's publish API takes them. It is never shown: its `description` says only
/// which kind it is.
public struct NotifyCredential: Sendable, Equatable, CustomStringConvertible {
    /// The `Authorization` header's value.
    let authorization: String

    /// A token, or `user:password` when the text holds a colon (an ntfy access token never does); leading and
    /// trailing white space (a file's last line break) is dropped. Nil when empty, or when it holds a control
    /// character (a line break inside would end the header).
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        if trimmed.contains(":") {
            self.init(basic: trimmed)
        } else {
            guard !trimmed.contains(" ") else { return nil }
            self.init(authorization: "Bearer \(trimmed)")
        }
    }

    /// `user:password` as Basic credentials.
    init(basic userPassword: String) {
        self.init(authorization: "Basic \(Data(userPassword.utf8).base64EncodedString())")
    }

    private init(authorization: String) {
        self.authorization = authorization
    }

    public var description: String {
        authorization.hasPrefix("Bearer") ? "an ntfy access token" : "a user:password"
    }
}

/// Sends every new alert to the `--notify` targets: after the create is answered, never in its way, through the
/// webhook sender's connection slots, clients, time limit and retry schedule (`WebhookSender.post`).
///
/// Each notification carries the alert's single-alert link for the `--notify-responder` (signed by `PageAccess`) and,
/// for an alert without fields and with at most three buttons, one answer link per button: ntfy shows them as `http`
/// action buttons that answer from the notification itself. Deliveries live in memory; a restart loses those still
/// retrying unless a data dir or the cluster keeps them (`NotifyRecord`).
public final class Notifier: Sendable {
    private let targets: [NotifyTarget]
    /// What ntfy targets are sent unless their URL has its own (`NotifyTarget.credential`).
    private let credential: NotifyCredential?
    private let sender: WebhookSender
    private let pages: PageAccess
    /// The base of links: `--public-url`, or alertd's own address once its port is known (`serving(at:)`).
    private let base: Lock<String>
    private let responder: String?
    /// Whether alertd runs without tokens (links then name no responder).
    private let tokensOpen: Bool
    private let metrics: Metrics
    private let log: AccessLog
    /// The notifications not done yet, kept in the data dir or the cluster; nil in memory.
    private let outbox: (any NotifyRecord)?
    /// Targets still to finish, by alert, for the outbox's `finished`.
    private let remaining = Lock<[AlertID: Int]>([:])
    /// Operator-given targets: every address is allowed (the allow list is for producers' callbacks).
    private let policy = WebhookPolicy(list: "*")!
    /// Deliveries queued or under way; past `limit` new ones are dropped (and counted).
    private let running = Lock<(count: Int, stopped: Bool)>((0, false))
    static let limit = 10_000

    /// - Parameters:
    ///   - publicURL: the base of links, as a responder's phone reaches alertd (`--public-url`).
    ///   - responder: the responder links name (`--notify-responder`); nil: no links, only the page's address
    ///     (sign-in needed). In open mode links need no responder.
    public init(targets: [NotifyTarget], sender: WebhookSender, pages: PageAccess, publicURL: String?,
                responder: String?, tokensOpen: Bool, metrics: Metrics, log: AccessLog,
                outbox: (any NotifyRecord)? = nil,
                credential: NotifyCredential? = nil) {
        self.tokensOpen = tokensOpen
        self.credential = credential
        self.outbox = outbox
        self.targets = targets
        self.sender = sender
        self.pages = pages
        base = Lock(publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? "")
        fixedBase = publicURL != nil
        self.responder = responder
        self.metrics = metrics
        self.log = log
    }

    /// Whether `--public-url` gave the base (else `serving(at:)` does).
    private let fixedBase: Bool

    /// alertd's own address, the base of links without `--public-url`.
    public func serving(at url: String) {
        guard !fixedBase else { return }
        base.withLock { $0 = url }
    }

    /// Starts notifying every target of `alert`; returns at once.
    func created(_ alert: Alert) {
        guard !targets.isEmpty else { return }
        if let outbox {
            outbox.started(alert.id)
            remaining.withLock { $0[alert.id] = targets.count }
        }
        for target in targets {
            let admitted = running.withLock { running -> Bool in
                guard !running.stopped, running.count < Self.limit else { return false }
                running.count += 1
                return true
            }
            guard admitted else {
                metrics.notify("dropped")
                targetDone(alert.id)
                continue
            }
            // At low priority and off the create's path: signing the links and writing the JSON cost more than
            // the create itself, and a target that is slow or down must not take the cores creates need.
            Task(priority: .background) {
                let body = self.payload(alert, for: target)
                if await self.deliver(body, to: target, alert: alert.id) { self.targetDone(alert.id) }
                self.running.withLock { $0.count -= 1 }
            }
        }
    }

    /// Sends again the notifications a restart (or, in a cluster, another instance's end) left unfinished, of the
    /// alerts still pending in `store`; the others' are finished.
    public func resend(_ ids: [AlertID], from store: AlertStore) {
        for id in ids {
            if let alert = store.snapshot(of: id), alert.result == nil { created(alert) } else { outbox?.finished(id) }
        }
    }

    /// One target is done with the alert (its last attempt made); the outbox hears when all are.
    private func targetDone(_ id: AlertID) {
        guard let outbox else { return }
        let done = remaining.withLock { remaining -> Bool in
            guard let left = remaining[id] else { return false }
            if left <= 1 {
                remaining.removeValue(forKey: id)
                return true
            }
            remaining[id] = left - 1
            return false
        }
        if done { outbox.finished(id) }
    }

    /// Stops queuing new deliveries (at shutdown; the sender's `stop()` ends those in flight).
    public func stop() {
        running.withLock { $0.stopped = true }
    }

    /// The attempts at one target; true once the last was made, false when stopped first.
    private func deliver(_ body: [UInt8], to target: NotifyTarget, alert: AlertID) async -> Bool {
        let schedule = sender.schedule
        var delay = schedule.firstDelay
        var headers = [("X-Alertd-Alert", alert.rawValue)]
        if let credential = target.credential(credential) {
            headers.append(("Authorization", credential.authorization))
        }
        for attempt in 1...max(1, schedule.attempts) {
            guard let failure = await sender.post(body, to: target.url, headers: headers, policy: policy) else {
                return false
            }
            let final = failure == nil || attempt >= schedule.attempts
            metrics.notify(failure == nil ? "delivered" : (final ? "failed" : "retry"))
            guard let failure else { return true }
            log.event(final ? "error" : "warn", "notification failed",
                      ["alertId": alert.rawValue, "target": target.url.redacted, "attempt": String(attempt),
                       "error": failure.logged])
            if final { return true }
            if running.withLock({ $0.stopped }) { return false }
            guard (try? await Task.sleep(for: delay)) != nil else { return false }
            delay = min(delay * 2, schedule.maxDelay)
        }
        return true
    }

    // MARK: payloads

    /// The links of one alert: the page's (a signed single-alert link when links are on), and one answer link per
    /// button when it can be answered from a notification.
    struct Links {
        let view: String
        let answers: [(button: AlertButton, url: String)]
    }

    func links(_ alert: Alert) -> Links {
        let publicURL = base.withLock { $0 }
        let name = responder ?? ""
        let signs = responder != nil || tokensOpen
        // Without tokens the page needs no sign-in (and serves loopback only): the alert's own address will do.
        let view = responder != nil
            ? "\(publicURL)/app/link?l=\(pages.signLink(alert: alert.id, responder: name))" : nil
        var answers: [(AlertButton, String)] = []
        if signs, alert.fields.isEmpty, alert.buttons.count <= 3 {
            for button in alert.buttons {
                let token = pages.signLink(alert: alert.id, responder: name, button: button.index)
                answers.append((button, "\(publicURL)/app/answer?l=\(token)"))
            }
        }
        return Links(view: view ?? "\(publicURL)/app/alerts/\(alert.id.rawValue)", answers: answers)
    }


    func payload(_ alert: Alert, for target: NotifyTarget) -> [UInt8] {
        let links = links(alert)
        var writer = JSONWriter()
        switch target.kind {
        case .ntfy(let topic):
            writer.write(Self.ntfy(alert, topic: topic, links: links))
        case .webhook:
            var alertJSON = JSONWriter()
            alertJSON.write(alert, redactingSecrets: true)
            let parsed = (try? JSONParser.parse(alertJSON.bytes)) ?? .null
            writer.write(.object(JSONObject([
                ("event", .string("alert.created")),
                ("alert", parsed),
                ("link", .string(links.view)),
                ("answers", .array(links.answers.map { answer in
                    .object(JSONObject([("buttonIndex", .integer(Int64(answer.button.index))),
                             ("button", .string(answer.button.title)), ("method", .string("POST")),
                             ("url", .string(answer.url))]))
                })),
            ])))
        }
        return writer.bytes
    }

    /// ntfy's JSON publish message: tapping it opens the link (`click`); its buttons (ntfy shows at most three) are
    /// `http` actions that answer, with a `view` action first when there is room.
    static func ntfy(_ alert: Alert, topic: String, links: Links) -> JSONValue {
        let destructive = alert.buttons.contains { $0.style == .destructive }
        var actions: [JSONValue] = []
        if links.answers.count < 3 {
            actions.append(.object(JSONObject([("action", .string("view")), ("label", .string("Open")),
                                    ("url", .string(links.view)), ("clear", .bool(false))])))
        }
        for (button, url) in links.answers {
            actions.append(.object(JSONObject([("action", .string("http")), ("label", .string(button.title)),
                                    ("url", .string(url)), ("method", .string("POST")),
                                    ("headers", .object(JSONObject([("Content-Type", .string("application/json"))]))),
                                    ("body", .string("{}")), ("clear", .bool(true))])))
        }
        var tags: [JSONValue] = [.string("bell")]
        if destructive { tags.append(.string("warning")) }
        tags.append(.string(alert.presenter))
        let title = alert.title.isEmpty ? "alertd: \(alert.presenter)" : alert.title
        return .object(JSONObject([
            ("topic", .string(topic)),
            ("title", .string(String(title.prefix(250)))),
            ("message", .string(alert.message.isEmpty ? "Waiting for an answer" : String(alert.message.prefix(4000)))),
            ("priority", .integer(destructive || alert.expiresAt != nil ? 4 : 3)),
            ("tags", .array(tags)),
            ("click", .string(links.view)),
            ("actions", .array(actions)),
        ]))
    }
}
