@testable import AlertCore
import Testing

@Suite("Answering")
struct AnswerTests {
    let store = AlertStore()

    func login() async throws -> Alert {
        try await store.create(AlertDraft(
            title: "Login",
            buttons: plain("Cancel", "OK", "OK"),
            fields: [FieldSpec(text: "alice"), FieldSpec(placeholder: "Password", secure: true)]
        ))
    }

    @Test("answer by index resolves with ok true and the given values")
    func byIndex() async throws {
        let alert = try await login()
        let result = try await store.answer(alert.id, with: AnswerDraft(choice: .index(1), values: ["bob", "pw"]))
        #expect(result.buttonIndex == 1)
        #expect(result.buttonTitle == "OK")
        #expect(result.ok)
        #expect(result.values == ["bob", "pw"])
        #expect(result.resolution == .answered)
        let stored = try await store.alert(alert.id)
        #expect(stored.state == .resolved)
        #expect(stored.result == result)
    }

    @Test("answer by a title two buttons share is invalid at /button, naming both and buttonIndex")
    func byAmbiguousTitle() async throws {
        let alert = try await login()
        let error = await #expect(throws: AlertStoreError.self) {
            try await store.answer(alert.id, with: AnswerDraft(choice: .title("OK")))
        }
        #expect(error?.kind == .invalid)
        #expect(error?.issues.map(\.pointer) == ["/button"])
        #expect(error?.issues.first?.detail.contains("(indexes 1, 2)") == true)
        #expect(error?.issues.first?.detail.contains("buttonIndex") == true)
        #expect(try await store.alert(alert.id).state == .pending)
    }

    @Test("answer by title picks the one button with that exact title, and records the responder")
    func byTitle() async throws {
        let alert = try await login()
        let result = try await store.answer(alert.id, with: AnswerDraft(choice: .title("Cancel")), by: "alice")
        #expect(result.buttonIndex == 0)
        #expect(result.responder == "alice")
        #expect(try await store.alert(alert.id).result?.responder == "alice")
    }

    @Test("choosing the cancel button gives ok false")
    func cancelNotOK() async throws {
        let alert = try await login()
        let result = try await store.answer(alert.id, with: AnswerDraft(choice: .title("Cancel")))
        #expect(result.buttonIndex == 0)
        #expect(!result.ok)
    }

    @Test("values left out mean each field's text")
    func defaultValues() async throws {
        let alert = try await login()
        let result = try await store.answer(alert.id, with: AnswerDraft(choice: .index(2)))
        #expect(result.values == ["alice", ""])
    }

    @Test("a wrong number of values is an issue at /values naming the expected count")
    func valueCountMismatch() async throws {
        let alert = try await login()
        let error = try #require(await storeError { () async throws(AlertStoreError) in
            try await store.answer(alert.id, with: AnswerDraft(choice: .index(1), values: ["only"]))
        })
        #expect(error.kind == .invalid)
        #expect(error.issues.map(\.pointer) == ["/values"])
        #expect(error.issues[0].detail.contains("exactly 2"))
        #expect(try await store.alert(alert.id).state == .pending)
    }

    @Test("a value over 1024 characters is an issue at /values/i")
    func valueTooLong() async throws {
        let alert = try await login()
        let error = await storeError { () async throws(AlertStoreError) in
            try await store.answer(alert.id, with: AnswerDraft(choice: .index(1),
                                                               values: ["a", String(repeating: "v", count: 1025)]))
        }
        #expect(error?.issues.map(\.pointer) == ["/values/1"])
    }

    @Test("an index out of range is an issue at /buttonIndex", arguments: [-1, 3, 99])
    func indexOutOfRange(index: Int) async throws {
        let alert = try await login()
        let error = await storeError { () async throws(AlertStoreError) in
            try await store.answer(alert.id, with: AnswerDraft(choice: .index(index)))
        }
        #expect(error?.issues.map(\.pointer) == ["/buttonIndex"])
    }

    @Test("an unknown title is an issue at /button; titles match exactly")
    func unknownTitle() async throws {
        let alert = try await login()
        let error = await storeError { () async throws(AlertStoreError) in
            try await store.answer(alert.id, with: AnswerDraft(choice: .title("ok")))
        }
        #expect(error?.issues.map(\.pointer) == ["/button"])
    }

    @Test("an action sheet answers with values []; values given to it are an issue")
    func actionSheetValues() async throws {
        let sheet = try await store.create(AlertDraft(title: "Pick", style: .actionSheet, buttons: plain("No", "Yes")))
        let error = await storeError { () async throws(AlertStoreError) in
            try await store.answer(sheet.id, with: AnswerDraft(choice: .index(1), values: ["x"]))
        }
        #expect(error?.issues.map(\.pointer) == ["/values"])
        let result = try await store.answer(sheet.id, with: AnswerDraft(choice: .index(1)))
        #expect(result.values == [])
    }

    @Test("an unknown id is notFound")
    func unknownID() async {
        let error = await storeError { () async throws(AlertStoreError) in
            try await store.answer(AlertID(rawValue: "nope"), with: AnswerDraft(choice: .index(0)))
        }
        #expect(error?.kind == .notFound)
        let lookup = await storeError { () async throws(AlertStoreError) in
            try await store.alert(AlertID(rawValue: "nope"))
        }
        #expect(lookup?.kind == .notFound)
    }

    @Test("a second answer is alreadyResolved carrying the winning result")
    func secondAnswer() async throws {
        let alert = try await login()
        let won = try await store.answer(alert.id, with: AnswerDraft(choice: .index(1)))
        let error = try #require(await storeError { () async throws(AlertStoreError) in
            try await store.answer(alert.id, with: AnswerDraft(choice: .index(0)))
        })
        #expect(error.kind == .alreadyResolved)
        #expect(error.result == won)
        #expect(error.message == "alert \(alert.id) is already resolved (answered)")
    }
}
