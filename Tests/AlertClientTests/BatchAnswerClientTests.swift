import AlertClient
import Foundation
import Testing

@Suite("AlertClient: answer policies and batch answers")
struct BatchAnswerClientTests {
    @Test("answer(ids, button:) reports each alert's outcome; the policy fields round-trip; me() names the caller")
    func batchAndPolicy() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            var input = AlertInput(title: "Go?", buttons: ["No", "Yes"])
            input.responders = ["alice"]
            input.fourEyes = true
            let first = try await client.create(input)
            #expect(first.responders == ["alice"] && first.groups == [] && first.fourEyes == true)
            let second = try await client.create(AlertInput(title: "Also?", buttons: ["No", "Yes"]))
            _ = try await client.answer(second.id, button: "No")
            let outcomes = try await client.answer([first.id, second.id, "gone"], button: "Yes")
            #expect(outcomes.map(\.outcome) == ["answered", "already-resolved", "not-found"])
            #expect(outcomes[0].result?.buttonTitle == "Yes")
            #expect(outcomes[1].result?.buttonTitle == "No")
            let me = try await client.me()
            #expect(me.name == nil && me.role == "admin")
            #expect(first.mayBeAnswered(by: me), "without tokens nobody has a name: everyone may answer")
            let alice = Identity(name: "alice", role: "responder", groups: [])
            let bob = Identity(name: "bob", role: "responder", groups: ["ops"])
            #expect(first.mayBeAnswered(by: alice) && !first.mayBeAnswered(by: bob))
        }
    }
}
