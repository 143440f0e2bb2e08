@testable import AlertCore
import Testing

@Suite("Rule 3: destructive")
struct DestructiveRuleTests {
    @Test("titles in destructive make matching buttons destructive")
    func destructiveByTitle() async throws {
        let alert = try await AlertStore().create(
            AlertDraft(title: "Delete?", buttons: plain("Cancel", "Delete", "Archive"), destructive: ["Delete"])
        )
        #expect(alert.buttons.map(\.style) == [.cancel, .destructive, .default])
    }

    @Test("a button given with style destructive is destructive")
    func destructiveByStyle() async throws {
        let buttons = [ButtonSpec(title: "Keep", style: .cancel), ButtonSpec(title: "Erase", style: .destructive)]
        let alert = try await AlertStore().create(draft(buttons))
        #expect(alert.buttons.map(\.style) == [.cancel, .destructive])
    }

    @Test("a destructive title that names no button is an issue at /destructive/i")
    func unknownTitle() async throws {
        let input = AlertDraft(title: "T", buttons: plain("Cancel", "Delete"), destructive: ["Delete", "Remove"])
        let error = try #require(await createError(input))
        #expect(error.issues.map(\.pointer) == ["/destructive/1"])
        #expect(error.issues[0].detail.contains("'Remove' does not name a button"))
    }

    @Test("the left-most button made cancel by default cannot be destructive, and the detail says why")
    func implicitCancelNotDestructive() async throws {
        let input = AlertDraft(title: "T", buttons: plain("Delete", "Keep"), destructive: ["Delete"])
        let error = try #require(await createError(input))
        #expect(error.issues.map(\.pointer) == ["/destructive/0"])
        #expect(error.issues[0].detail == "'Delete' is the cancel button (the left-most button becomes the cancel"
            + " button when none is marked cancel) and cannot be destructive; mark another button as cancel")
    }

    @Test("a left-most button given as destructive, none marked cancel, is an issue")
    func leftMostStyledDestructive() async throws {
        let buttons = [ButtonSpec(title: "Delete", style: .destructive), ButtonSpec(title: "Keep")]
        let error = try #require(await createError(draft(buttons)))
        #expect(error.issues.map(\.pointer) == ["/buttons/0"])
        #expect(error.issues[0].detail.contains("mark another button as cancel"))
    }

    @Test("marking another button cancel lets the left-most be destructive")
    func explicitCancelElsewhere() async throws {
        let buttons = [ButtonSpec(title: "Delete", style: .destructive), ButtonSpec(title: "Keep", style: .cancel)]
        let alert = try await AlertStore().create(draft(buttons))
        #expect(alert.buttons.map(\.title) == ["Keep", "Delete"])
        #expect(alert.buttons.map(\.style) == [.cancel, .destructive])
    }

    @Test("a button marked cancel named in destructive is an issue")
    func explicitCancelNotDestructive() async throws {
        let buttons = [ButtonSpec(title: "OK"), ButtonSpec(title: "Stop", style: .cancel)]
        let error = try #require(await createError(AlertDraft(title: "T", buttons: buttons, destructive: ["Stop"])))
        #expect(error.issues.map(\.pointer) == ["/destructive/0"])
    }

    @Test("destructive may name the implicit OK button of a simple alert")
    func simpleAlertDestructive() async throws {
        let alert = try await AlertStore().create(AlertDraft(title: "Wipe", destructive: ["OK"]))
        #expect(alert.buttons == [AlertButton(index: 0, title: "OK", style: .destructive)])
    }

    @Test("every issue is collected at once, in rule order")
    func collectsAll() async throws {
        let buttons = [ButtonSpec(title: "A", style: .cancel), ButtonSpec(title: "B", style: .cancel)]
        let input = AlertDraft(title: String(repeating: "t", count: 257), style: .actionSheet, presenter: "a b",
                               buttons: buttons, destructive: ["Z"], fields: [FieldSpec()], timeout: 0)
        let error = try #require(await createError(input))
        #expect(error.issues.map(\.pointer) == ["/buttons/1", "/destructive/0", "/fields", "/title", "/presenter",
                                                "/timeout"])
        #expect(error.message.hasPrefix("6 problems: "))
    }
}
