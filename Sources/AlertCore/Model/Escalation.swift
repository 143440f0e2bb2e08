import Foundation

/// One step of an alert's escalation: once the alert has waited `after` seconds since it was created without being
/// resolved, it moves to `presenter`, and `responders` and `groups` may answer it too.
///
/// How it composes (docs/API.md "Escalation"): steps fire in order, each once, while the alert is pending; the
/// timeout counts from creation too and is never moved, so a step must come before it; votes cast before a step
/// still count after it; four eyes and the quorum stay as they were; rules answer at creation only.
public struct EscalationStep: Sendable, Equatable {
    /// Seconds from creation until this step fires.
    public var after: Double
    /// The presenter the alert moves to.
    public var presenter: String
    /// Token names that may answer from this step on, besides those allowed before.
    public var responders: [String]
    /// Groups whose members may answer from this step on, besides those allowed before.
    public var groups: [String]

    /// The most steps an alert may have.
    public static let maximumSteps = 8
    /// The latest a step may fire: 30 days after creation.
    public static let latest: Double = 30 * 24 * 3600

    /// - Parameters:
    ///   - after: Seconds from creation until the step fires.
    ///   - presenter: Where the alert moves.
    ///   - responders: Who else may answer.
    ///   - groups: Which groups may answer too.
    public init(after: Double, presenter: String, responders: [String] = [], groups: [String] = []) {
        self.after = after
        self.presenter = presenter
        self.responders = responders
        self.groups = groups
    }
}

/// A step of an alert's escalation that fired.
public struct Escalation: Sendable, Equatable {
    /// The presenter the alert left.
    public var from: String
    /// When the step fired.
    public var at: Date
    /// The change index of its `escalated` event: what an event from before it showed is the alert without it.
    public var event: UInt64

    /// - Parameters:
    ///   - from: The presenter the alert left.
    ///   - at: When.
    ///   - event: The index of its `escalated` event.
    public init(from: String, at: Date, event: UInt64) {
        self.from = from
        self.at = at
        self.event = event
    }
}

extension Alert {
    /// The alert once its next escalation step fired at `now` with event `event`: moved to the step's presenter, with
    /// the step's responders and groups allowed too; `nil` when it is resolved or has no step left.
    public func escalated(at now: Date, event: UInt64) -> Alert? {
        guard result == nil, escalated.count < escalation.count else { return nil }
        let step = escalation[escalated.count]
        var alert = self
        alert.escalated.append(Escalation(from: presenter, at: now, event: event))
        alert.presenter = step.presenter
        alert.policy.responders += step.responders
        alert.policy.groups += step.groups
        return alert
    }

    /// When the next escalation step fires, or `nil` when none is left (or the alert is resolved).
    public var nextEscalationAt: Date? {
        guard result == nil, escalated.count < escalation.count else { return nil }
        return createdAt.addingTimeInterval(escalation[escalated.count].after)
    }

    /// The alert as it was just after the change with index `event`, as far as escalation goes: at the presenter it
    /// had then, answerable by those allowed then.
    public func before(escalationsAfter event: UInt64) -> Alert {
        guard let first = escalated.firstIndex(where: { $0.event > event }) else { return self }
        var alert = self
        let undone = escalated[first...].indices.map { escalation[$0] }
        alert.presenter = escalated[first].from
        alert.escalated.removeSubrange(first...)
        let responders = Set(undone.flatMap(\.responders))
        let groups = Set(undone.flatMap(\.groups))
        alert.policy.responders.removeAll(where: responders.contains)
        alert.policy.groups.removeAll(where: groups.contains)
        return alert
    }
}

extension AlertDraft {
    /// Appends an issue for each bad escalation step: at most `EscalationStep.maximumSteps`; `after` positive,
    /// increasing, at most `EscalationStep.latest` and before the timeout; a presenter spelled like one and other than
    /// where the alert is by then; names spelled like token names, none already allowed (they widen who may answer,
    /// so an alert that lets every responder answer names none).
    func checkEscalation(issues: inout [FieldIssue]) {
        guard !escalation.isEmpty else { return }
        if escalation.count > EscalationStep.maximumSteps {
            issues.append(FieldIssue(pointer: "/escalation", detail: "\(escalation.count) steps given; at most "
                + "\(EscalationStep.maximumSteps) are allowed"))
            return
        }
        var previousAfter = 0.0
        var presenter = self.presenter
        var allowed = Set(policy.responders)
        var allowedGroups = Set(policy.groups)
        for (index, step) in escalation.enumerated() {
            let pointer = "/escalation/\(index)"
            if !step.after.isFinite || step.after <= previousAfter || step.after > EscalationStep.latest {
                let floor = index == 0 ? "more than 0" : "more than the step before's \(previousAfter.shortText)"
                issues.append(FieldIssue(pointer: pointer + "/after", detail: "after \(step.after.shortText) must be "
                    + "\(floor) and at most \(EscalationStep.latest.shortText) seconds"))
            } else if let timeout, step.after >= timeout {
                issues.append(FieldIssue(pointer: pointer + "/after", detail: "after \(step.after.shortText) is not "
                    + "before the timeout of \(timeout.shortText) seconds, so the step could never fire"))
            }
            previousAfter = step.after.isFinite ? max(previousAfter, step.after) : previousAfter
            if !Self.isValidPresenter(step.presenter) {
                issues.append(FieldIssue(pointer: pointer + "/presenter",
                                         detail: "'\(step.presenter)' must match [A-Za-z0-9._-]{1,64}"))
            } else if step.presenter == presenter, step.responders.isEmpty, step.groups.isEmpty {
                issues.append(FieldIssue(pointer: pointer + "/presenter", detail: "the alert is at '\(presenter)' "
                    + "already by then, and the step names nobody new: it would change nothing"))
            }
            presenter = step.presenter
            for (member, names) in [("responders", step.responders), ("groups", step.groups)] {
                for (position, name) in names.enumerated() {
                    let at = "\(pointer)/\(member)/\(position)"
                    if !Self.isValidPresenter(name) {
                        issues.append(FieldIssue(pointer: at, detail: "'\(name)' must match [A-Za-z0-9._-]{1,64}"))
                    } else if !policy.isRestricted {
                        issues.append(FieldIssue(pointer: at, detail: "the alert names no responders or groups, so "
                            + "every responder may answer it already; an escalation step can only widen a list"))
                    } else if !(member == "responders" ? allowed.insert(name).inserted
                                : allowedGroups.insert(name).inserted) {
                        issues.append(FieldIssue(pointer: at, detail: "'\(name)' may answer already by then"))
                    }
                }
                if names.count > AnswerPolicy.maximumNames {
                    issues.append(FieldIssue(pointer: "\(pointer)/\(member)", detail: "\(names.count) \(member) "
                        + "given; at most \(AnswerPolicy.maximumNames) are allowed"))
                }
            }
        }
    }
}

extension Double {
    /// The number without a trailing `.0`: `300`, `0.5`.
    var shortText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
