import AlertClient
import Foundation
import HTTPTestSupport
import Testing

/// The seeds' code against a live alertd: main-actor state touched from the actions, completion handlers,
/// typed keyboards, time-outs, and a cancelled caller withdrawing its alert.
@Suite("AlertController: the seeds' examples")
struct SeedExamplesTests {
    @Test("Click Me from a main-actor screen: the chosen action sets the screen's label, with await and without")
    func clickMe() async throws {
        try await LiveAlertd.with { server in
            let screen = await ClickMeScreen(controller: AlertController(client: server.client()))
            let asked = Task { @MainActor in try await screen.clickMe() }
            let first = try await pendingAlert(server.client())
            _ = try await server.client().answer(first.id, button: "OK")
            #expect(try await asked.value.buttonTitle == "OK")
            #expect(await screen.debugLabel == "OK")

            await screen.clickMeWithCompletion()
            let second = try await pendingAlert(server.client())
            _ = try await server.client().answer(second.id, button: "Cancel")
            #expect(await TestTime.until(every: .milliseconds(20)) { await screen.completed })
            #expect(await screen.debugLabel == "Cancel")
        }
    }

    @Test("the login example: fields with typed keyboards return (ok, values), also through a completion handler")
    func login() async throws {
        try await LiveAlertd.with { server in
            let controller = AlertController(client: server.client())
            let fields = [FieldInput(placeholder: "Username", keyboard: .emailAddress),
                          FieldInput(placeholder: "Password", secure: true, keyboard: .asciiCapable)]
            let responder = Task {
                let alert = try await pendingAlert(server.client())
                #expect(alert.fields.map(\.keyboardType) == [.emailAddress, .asciiCapable])
                return try await server.client().answer(alert.id, button: "Log in", values: ["alice", "s3cret"])
            }
            let (ok, values) = try await controller.alert(
                title: "Login", message: "Enter your credentials", fields: fields, buttons: ["Cancel", "Log in"])
            #expect(ok && values == ["alice", "s3cret"])
            _ = try await responder.value

            let answered: (ok: Bool, values: [String]) = try await withCheckedThrowingContinuation { continuation in
                controller.alert(title: "Login", message: nil, fields: fields, buttons: ["Cancel", "Log in"]) {
                    continuation.resume(with: $0)
                }
                Task {
                    let alert = try await pendingAlert(server.client())
                    _ = try await server.client().answer(alert.id, button: "Log in", values: ["bob", "pw"])
                }
            }
            #expect(answered.ok && answered.values == ["bob", "pw"])
        }
    }

    @Test("timeout: on the convenience calls makes the alert expire as its cancel button")
    func timeout() async throws {
        try await LiveAlertd.with { server in
            let controller = AlertController(client: server.client())
            let result = try await controller.simpleAlert("Backup done", timeout: 0.2)
            #expect(result.resolution == "expired")
            let index = try await controller.actionSheet(
                title: "Photo", message: nil, buttons: ["Cancel", "Share"], timeout: 0.2)
            #expect(index == 0)
        }
    }

    @Test("cancelling the calling Task withdraws the alert; dismissesOnCancel false leaves it pending")
    func cancelDismisses() async throws {
        try await LiveAlertd.with { server in
            let controller = AlertController(client: server.client())
            let waiting = Task {
                try await controller.alert(title: "Deploy?", message: nil, actionTitles: ["No", "Yes"])
            }
            let alert = try await pendingAlert(server.client())
            waiting.cancel()
            let error = await #expect(throws: AlertClientError.self) { try await waiting.value }
            #expect(error?.kind == .cancelled)
            let withdrawn = try await server.client().alert(alert.id)
            #expect(withdrawn.result?.resolution == "dismissed")

            let keeping = AlertController(client: server.client(), dismissesOnCancel: false)
            let kept = Task { try await keeping.present(AlertInput(title: "Stay", buttons: ["No", "Yes"])) }
            let pending = try await pendingAlert(server.client())
            kept.cancel()
            await #expect(throws: AlertClientError.self) { try await kept.value }
            #expect(try await server.client().alert(pending.id).isPending)
            _ = try await server.client().dismiss(pending.id)
        }
    }
}

/// A screen as the seeds write one: main-actor state, changed from the alert's actions.
@MainActor
final class ClickMeScreen {
    let controller: AlertController
    var debugLabel = ""
    var completed = false

    init(controller: AlertController) {
        self.controller = controller
    }

    func clickMe() async throws -> RemoteResult {
        try await controller.alert(
            title: "Hello", message: "ViewController's Click Me was pressed.", actionTitles: ["Cancel", "OK"],
            actions: [{ self.debugLabel = "Cancel" }, { self.debugLabel = "OK" }])
    }

    func clickMeWithCompletion() {
        controller.alert(
            title: "Hello", message: "ViewController's Click Me was pressed.", actionTitles: ["Cancel", "OK"],
            actions: [{ self.debugLabel = "Cancel" }, { self.debugLabel = "OK" }]
        ) { _ in
            self.completed = true
        }
    }
}
