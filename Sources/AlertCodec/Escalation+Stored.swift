import AlertCore
import JSON

/// An alert's escalation as stored members: `escalation` (the steps, `[{"after":300,"presenter":"oncall",
/// "responders":[…],"groups":[…]}]`) and `escalated` (the steps taken, `[{"from":"root","at":ms,"event":7}]`),
/// each written only when not empty, so an alert without escalation is stored as before.
extension EscalationStep {
    static func write(_ steps: [EscalationStep], to writer: inout JSONWriter) {
        guard !steps.isEmpty else { return }
        writer.member("escalation")
        writer.beginArray()
        for step in steps {
            writer.beginObject()
            writer.member("after")
            writer.write(step.after)
            writer.member("presenter")
            writer.write(step.presenter)
            for (member, names) in [("responders", step.responders), ("groups", step.groups)] where !names.isEmpty {
                writer.member(named: member)
                writer.beginArray()
                for name in names { writer.write(name) }
                writer.endArray()
            }
            writer.endObject()
        }
        writer.endArray()
    }

    /// The steps in a stored object; none when it has no `escalation`.
    static func steps(storedIn object: JSONObject) throws(StoredValueError) -> [EscalationStep] {
        guard object["escalation"] != nil else { return [] }
        var steps: [EscalationStep] = []
        for item in try object.array("escalation") {
            let step = try item.object("an escalation step")
            guard let after = step["after"]?.doubleValue else {
                throw StoredValueError("an escalation step's 'after' is not a number")
            }
            steps.append(EscalationStep(
                after: after, presenter: try step.string("presenter"),
                responders: try step["responders"].map { value throws(StoredValueError) in
                    try value.strings("an escalation step's responders")
                } ?? [],
                groups: try step["groups"].map { value throws(StoredValueError) in
                    try value.strings("an escalation step's groups")
                } ?? []))
        }
        return steps
    }
}

extension Escalation {
    static func write(_ taken: [Escalation], to writer: inout JSONWriter) {
        guard !taken.isEmpty else { return }
        writer.member("escalated")
        writer.beginArray()
        for escalation in taken {
            writer.beginObject()
            writer.member("from")
            writer.write(escalation.from)
            writer.member("at")
            writer.write(StoredTime.milliseconds(escalation.at))
            writer.member("event")
            writer.write(Int64(bitPattern: escalation.event))
            writer.endObject()
        }
        writer.endArray()
    }

    /// The steps taken in a stored object; none when it has no `escalated`.
    static func taken(storedIn object: JSONObject) throws(StoredValueError) -> [Escalation] {
        guard object["escalated"] != nil else { return [] }
        var taken: [Escalation] = []
        for item in try object.array("escalated") {
            let escalation = try item.object("an escalation taken")
            taken.append(Escalation(from: try escalation.string("from"),
                                    at: StoredTime.date(try escalation.int64("at")),
                                    event: UInt64(bitPattern: try escalation.int64("event"))))
        }
        return taken
    }
}
