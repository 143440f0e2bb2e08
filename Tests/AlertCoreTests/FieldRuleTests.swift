@testable import AlertCore
import Testing

@Suite("Rule 4: fields")
struct FieldRuleTests {
    @Test("fields are indexed and kept as given")
    func fieldsNormalized() async throws {
        let fields = [FieldSpec(placeholder: "User"), FieldSpec(text: "x", placeholder: "Pass", secure: true,
                                                                keyboard: .asciiCapable)]
        let alert = try await AlertStore().create(AlertDraft(title: "Login", fields: fields))
        #expect(alert.fields == [
            AlertField(index: 0, text: "", placeholder: "User", secure: false, keyboard: .default),
            AlertField(index: 1, text: "x", placeholder: "Pass", secure: true, keyboard: .asciiCapable),
        ])
    }

    @Test("an action sheet with fields is an issue at /fields")
    func actionSheetFields() async throws {
        let input = AlertDraft(title: "Pick", style: .actionSheet, buttons: plain("No", "Yes"), fields: [FieldSpec()])
        let error = try #require(await createError(input))
        #expect(error.kind == .invalid)
        #expect(error.issues.map(\.pointer) == ["/fields"])
        #expect(error.issues[0].detail.contains("action sheet"))
    }

    @Test("an action sheet without fields is fine")
    func actionSheetWithoutFields() async throws {
        let alert = try await AlertStore().create(AlertDraft(title: "Pick", style: .actionSheet))
        #expect(alert.style == .actionSheet)
    }
}
