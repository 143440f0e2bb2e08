@testable import AlertCore
import Testing

@Suite("Rules 1-2: simple alert and cancel first")
struct ButtonRuleTests {
    @Test("no buttons gives one OK button with style default")
    func simpleAlert() async throws {
        let alert = try await AlertStore().create(AlertDraft(message: "hi"))
        #expect(alert.buttons == [AlertButton(index: 0, title: "OK", style: .default)])
        #expect(alert.cancelButton == nil)
        #expect(alert.state == .pending)
        #expect(alert.result == nil)
        #expect(alert.presenter == "root")
        #expect(alert.expiresAt == nil)
    }

    @Test("a button marked cancel moves to index 0, the others keep their order")
    func cancelMovesToFront() async throws {
        let buttons = [ButtonSpec(title: "A"), ButtonSpec(title: "B"), ButtonSpec(title: "Nope", style: .cancel)]
        let alert = try await AlertStore().create(draft(buttons))
        #expect(alert.buttons.map(\.title) == ["Nope", "A", "B"])
        #expect(alert.buttons.map(\.style) == [.cancel, .default, .default])
        #expect(alert.buttons.map(\.index) == [0, 1, 2])
        #expect(alert.cancelButton?.title == "Nope")
    }

    @Test("with none marked, the left-most button becomes cancel")
    func leftMostBecomesCancel() async throws {
        let alert = try await AlertStore().create(draft(plain("Cancel", "OK", "Later")))
        #expect(alert.buttons.map(\.style) == [.cancel, .default, .default])
        #expect(alert.buttons.map(\.title) == ["Cancel", "OK", "Later"])
    }

    @Test("two cancel buttons are an issue at the second, by input position")
    func twoCancels() async throws {
        let buttons = [
            ButtonSpec(title: "A"), ButtonSpec(title: "X", style: .cancel), ButtonSpec(title: "Y", style: .cancel),
        ]
        let error = try #require(await createError(draft(buttons)))
        #expect(error.kind == .invalid)
        #expect(error.issues.map(\.pointer) == ["/buttons/2"])
        #expect(error.issues[0].detail.contains("at most one cancel button"))
    }

    @Test("a single button keeps its given style", arguments: [ButtonStyle.cancel, .default, .destructive])
    func singleButtonKeepsStyle(style: ButtonStyle) async throws {
        let alert = try await AlertStore().create(draft([ButtonSpec(title: "Only", style: style)]))
        #expect(alert.buttons == [AlertButton(index: 0, title: "Only", style: style)])
    }

    @Test("a single unmarked button is default, not cancel")
    func singlePlainButton() async throws {
        let alert = try await AlertStore().create(draft(plain("Got it")))
        #expect(alert.buttons == [AlertButton(index: 0, title: "Got it", style: .default)])
    }

    @Test("other fields are echoed back")
    func echoes() async throws {
        let input = AlertDraft(title: "T", message: "M", style: .actionSheet, tag: -42, presenter: "ops.main_1",
                               animated: false, buttons: plain("No", "Yes"))
        let alert = try await AlertStore().create(input)
        #expect(alert.title == "T")
        #expect(alert.message == "M")
        #expect(alert.style == .actionSheet)
        #expect(alert.tag == -42)
        #expect(alert.presenter == "ops.main_1")
        #expect(alert.animated == false)
        #expect(alert.fields.isEmpty)
    }

    @Test("sequence numbers increase and ids differ")
    func sequenceAndID() async throws {
        let store = AlertStore()
        let first = try await store.create(draft())
        let second = try await store.create(draft())
        #expect(first.sequence < second.sequence)
        #expect(first.id != second.id)
        #expect(try await store.alert(first.id) == first)
    }
}
