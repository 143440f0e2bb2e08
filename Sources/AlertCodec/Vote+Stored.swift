import AlertCore
import JSON

/// A quorum alert's votes as a stored member `votes`: `[{"buttonIndex":1,"at":ms,"responder":"ana"}]`, written only
/// when there are votes, so an alert without any is stored as before.
extension Vote {
    static func write(_ votes: [Vote], to writer: inout JSONWriter) {
        guard !votes.isEmpty else { return }
        writer.member("votes")
        writer.beginArray()
        for vote in votes {
            writer.beginObject()
            writer.member("buttonIndex")
            writer.write(vote.buttonIndex)
            writer.member("at")
            writer.write(StoredTime.milliseconds(vote.at))
            if let responder = vote.responder {
                writer.member("responder")
                writer.write(responder)
            }
            writer.endObject()
        }
        writer.endArray()
    }

    /// The votes in a stored object; none when it has no `votes`.
    static func votes(storedIn object: JSONObject) throws(StoredValueError) -> [Vote] {
        guard object["votes"] != nil else { return [] }
        var votes: [Vote] = []
        for item in try object.array("votes") {
            let vote = try item.object("a vote")
            votes.append(Vote(responder: try vote.optionalString("responder"),
                              buttonIndex: Int(try vote.int64("buttonIndex")),
                              at: StoredTime.date(try vote.int64("at"))))
        }
        return votes
    }
}

extension Alert {
    /// The answer policy, the votes so far, an approval's tool call and the escalation as one JSON object (the
    /// journal's `policy` column: votes and escalation steps change a pending alert, and this column is the one they
    /// rewrite, with `presenter` for a step), or `nil` for the default policy without any of these.
    public var storedPolicyJSON: [UInt8]? {
        guard !policy.isDefault || !votes.isEmpty || tool != nil || !escalation.isEmpty else { return nil }
        var writer = JSONWriter(capacity: 96)
        writer.beginObject()
        policy.write(to: &writer)
        Vote.write(votes, to: &writer)
        ToolCall.write(tool, to: &writer)
        EscalationStep.write(escalation, to: &writer)
        Escalation.write(escalated, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// Sets `policy`, `votes`, `tool` and the escalation from what `storedPolicyJSON` wrote.
    public mutating func readStoredPolicy(_ bytes: UnsafeRawBufferPointer) throws(StoredValueError) {
        let object = try parseStored(bytes, "policy").object("the policy")
        policy = try AnswerPolicy(storedIn: object)
        votes = try Vote.votes(storedIn: object)
        tool = try ToolCall.read(storedIn: object)
        escalation = try EscalationStep.steps(storedIn: object)
        escalated = try Escalation.taken(storedIn: object)
    }
}
