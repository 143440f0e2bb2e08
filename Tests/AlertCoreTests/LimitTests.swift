@testable import AlertCore
import Testing

@Suite("Rule 5: limits")
struct LimitTests {
    @Test("title at most 256 characters, counted as Swift characters")
    func titleLength() async throws {
        #expect(await pointers(AlertDraft(title: String(repeating: "é", count: 256))).isEmpty)
        let error = try #require(await createError(AlertDraft(title: String(repeating: "👍🏽", count: 300))))
        let expected = FieldIssue(pointer: "/title", detail: "title is 300 characters; at most 256 are allowed")
        #expect(error.issues == [expected])
    }

    @Test("message at most 4096 characters")
    func messageLength() async {
        #expect(await pointers(AlertDraft(message: String(repeating: "m", count: 4096))).isEmpty)
        #expect(await pointers(AlertDraft(message: String(repeating: "m", count: 4097))) == ["/message"])
    }

    @Test("at least one of title and message")
    func titleOrMessage() async throws {
        let error = try #require(await createError(AlertDraft()))
        let expected = FieldIssue(pointer: "/title", detail: "title and message are both empty; give at least one")
        #expect(error.issues == [expected])
        #expect(await pointers(AlertDraft(title: "t")).isEmpty)
        #expect(await pointers(AlertDraft(message: "m")).isEmpty)
    }

    @Test("at most 16 buttons")
    func buttonCount() async {
        let titles = (0..<17).map { ButtonSpec(title: "B\($0)") }
        #expect(await pointers(draft(Array(titles.prefix(16)))).isEmpty)
        #expect(await pointers(draft(titles)) == ["/buttons"])
    }

    @Test("button titles 1 to 256 characters")
    func buttonTitle() async {
        #expect(await pointers(draft(plain("No", ""))) == ["/buttons/1/title"])
        #expect(await pointers(draft(plain("No", String(repeating: "b", count: 257)))) == ["/buttons/1/title"])
        #expect(await pointers(draft(plain("No", String(repeating: "b", count: 256)))).isEmpty)
    }

    @Test("at most 8 fields")
    func fieldCount() async {
        #expect(await pointers(AlertDraft(title: "t", fields: Array(repeating: FieldSpec(), count: 8))).isEmpty)
        #expect(await pointers(AlertDraft(title: "t", fields: Array(repeating: FieldSpec(), count: 9))) == ["/fields"])
    }

    @Test("field text at most 1024 characters, placeholder at most 256")
    func fieldLengths() async {
        let fields = [
            FieldSpec(text: String(repeating: "x", count: 1024), placeholder: String(repeating: "p", count: 256)),
            FieldSpec(text: String(repeating: "x", count: 1025)),
            FieldSpec(placeholder: String(repeating: "p", count: 257)),
        ]
        #expect(await pointers(AlertDraft(title: "t", fields: fields)) == ["/fields/1/text", "/fields/2/placeholder"])
    }

    @Test("presenter matches [A-Za-z0-9._-]{1,64}",
          arguments: ["root", "a", "Ops.team_2-x", String(repeating: "p", count: 64)])
    func validPresenter(name: String) async {
        #expect(await pointers(draft(presenter: name)).isEmpty)
    }

    @Test("presenter outside [A-Za-z0-9._-]{1,64} is an issue",
          arguments: ["", "a b", "a/b", "ünï", "x?", String(repeating: "p", count: 65)])
    func invalidPresenter(name: String) async {
        #expect(await pointers(draft(presenter: name)) == ["/presenter"])
    }

    @Test("timeout finite, above zero, at most 604800 seconds",
          arguments: [(0.001, true), (604_800, true), (0, false), (-1, false), (604_800.5, false),
                      (.infinity, false), (.nan, false)] as [(Double, Bool)])
    func timeout(value: Double, valid: Bool) async {
        let result = await pointers(AlertDraft(title: "t", timeout: value))
        #expect(result == (valid ? [] : ["/timeout"]))
    }

    @Test("a timeout sets expiresAt that far after createdAt")
    func expiresAt() async throws {
        let alert = try await AlertStore().create(AlertDraft(title: "t", timeout: 90))
        let expiresAt = try #require(alert.expiresAt)
        #expect(abs(expiresAt.timeIntervalSince(alert.createdAt) - 90) < 0.001)
    }

    @Test("configured limits apply")
    func configuredLimits() async {
        let store = AlertStore(configuration: .init(limits: StoreLimits(title: 3)))
        #expect(await createError(AlertDraft(title: "four"), in: store)?.issues.map(\.pointer) == ["/title"])
    }
}
