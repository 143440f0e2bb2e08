import AlertClient
import Foundation
import HTTPTestSupport
import Locking
import Testing

@Suite("AlertController: the seeds' API")
struct AlertControllerTests {
    @Test("alert(title:message:actionTitles:actions:) runs the chosen button's action")
    func seedAlertRunsAction() async throws {
        try await LiveAlertd.with { server in
            let controller = AlertController(client: server.client())
            let cancelled = Flag()
            let confirmed = Flag()
            let responder = Task {
                let alert = try await pendingAlert(server.client(), presenter: "settings")
                #expect(alert.buttons.map(\.title) == ["Cancel", "OK"])
                #expect(alert.style == "actionSheet")
                return try await server.client().answer(alert.id, button: "OK")
            }
            let result = try await controller.alert(
                title: "Reset?", message: "All settings", actionTitles: ["Cancel", "OK"],
                actions: [{ cancelled.set() }, { confirmed.set() }], style: .actionSheet, presenter: "settings")
            #expect(result == (try await responder.value))
            #expect(confirmed.isSet && !cancelled.isSet)
        }
    }

    @Test("a dismissed alert runs no action; present(onCreated:) hands over the id to dismiss")
    func dismissRunsNoAction() async throws {
        try await LiveAlertd.with { server in
            let controller = AlertController(client: server.client())
            let ran = Flag()
            let created = Lock<String?>(nil)
            let waiting = Task {
                try await controller.present(
                    AlertInput(title: "Wait", buttons: ["Cancel", "OK"]), onCreated: { alert in
                        created.withLock { $0 = alert.id }
                    })
            }
            #expect(await TestTime.until(every: .milliseconds(20)) { created.withLock { $0 } != nil })
            let id = try #require(created.withLock { $0 })
            let dismissal = try await controller.dismiss(id)
            #expect(try await waiting.value == dismissal)
            #expect(dismissal.resolution == "dismissed")

            let other = Task {
                try await controller.alert(
                    title: "Other", message: nil, actionTitles: ["Cancel", "OK"],
                    actions: [{ ran.set() }, { ran.set() }])
            }
            let pending = try await pendingAlert(server.client())
            try await controller.dismiss(pending.id)
            #expect(try await other.value.resolution == "dismissed")
            #expect(!ran.isSet)
        }
    }

    @Test("simpleAlert puts up one OK button")
    func simpleAlert() async throws {
        try await LiveAlertd.with { server in
            let controller = AlertController(client: server.client())
            let responder = Task {
                let alert = try await pendingAlert(server.client())
                #expect(alert.message == "Disk full" && alert.title.isEmpty)
                #expect(alert.buttons.map(\.title) == ["OK"])
                return try await server.client().answer(alert.id, buttonIndex: 0)
            }
            let result = try await controller.simpleAlert("Disk full")
            #expect(result.buttonTitle == "OK" && result.isAccepted)
            _ = try await responder.value
        }
    }

    @Test("actionSheet returns the chosen index, WCSAlertController style")
    func actionSheet() async throws {
        try await LiveAlertd.with { server in
            let controller = AlertController(client: server.client())
            let responder = Task {
                let alert = try await pendingAlert(server.client(), presenter: "photos")
                #expect(alert.tag == 42 && alert.animated == false)
                #expect(alert.buttons.map(\.style) == ["cancel", "destructive", "default"])
                return try await server.client().answer(alert.id, button: "Share")
            }
            let index = try await controller.actionSheet(
                title: "Photo", message: nil, tag: 42, destructive: ["Delete"], buttons: ["Cancel", "Delete", "Share"],
                presenter: "photos", animated: false)
            #expect(index == 2)
            _ = try await responder.value
        }
    }

    @Test("alert with fields returns (ok, values), secure values included; cancel is not ok")
    func alertWithFields() async throws {
        try await LiveAlertd.with { server in
            let controller = AlertController(client: server.client())
            let fields = [FieldInput(placeholder: "Username"), FieldInput(placeholder: "Password", secure: true)]
            let responder = Task {
                let alert = try await pendingAlert(server.client())
                #expect(alert.fields.map(\.secure) == [false, true])
                return try await server.client().answer(alert.id, button: "Log in", values: ["alice", "s3cret"])
            }
            let answer = try await controller.alert(
                title: "Login", message: nil, fields: fields, buttons: ["Cancel", "Log in"])
            #expect(answer.ok && answer.values == ["alice", "s3cret"])
            _ = try await responder.value

            let canceller = Task {
                let alert = try await pendingAlert(server.client())
                return try await server.client().answer(alert.id, button: "Cancel", values: ["bob", ""])
            }
            let cancelled = try await controller.alert(
                title: "Login", message: nil, fields: fields, buttons: ["Cancel", "Log in"])
            #expect(!cancelled.ok && cancelled.values == ["bob", ""])
            _ = try await canceller.value
        }
    }

    @Test("static calls use the shared controller from ALERTD_URL; the seeds' Click Me works, synchronous and async")
    func staticConvenience() async throws {
        try await LiveAlertd.with { server in
            // The only test that touches `shared`, which reads the environment once.
            setenv("ALERTD_URL", server.url.absoluteString, 1)
            #expect(try AlertController.shared.client.baseURL == server.url)
            let responder = Task {
                let alert = try await pendingAlert(server.client())
                return try await server.client().answer(alert.id, buttonIndex: 0)
            }
            let result = try await AlertController.simpleAlert("Disk full")
            #expect(result.buttonTitle == "OK")
            _ = try await responder.value

            // The seeds' ViewController: a synchronous action sets the main-actor debug label.
            await SeedViewController.clickMe()
            let clicked = try await pendingAlert(server.client())
            #expect(clicked.title == "Hello" && clicked.buttons.map(\.title) == ["Cancel", "OK"])
            _ = try await server.client().answer(clicked.id, button: "OK")
            #expect(await TestTime.until(every: .milliseconds(20)) { await MainActor.run { seedDebugLabel } == "OK" })

            // The same from async code: try await, the actions still run on the main actor.
            let asyncClick = Task { @MainActor in try await SeedViewController.clickMeAsync() }
            let again = try await pendingAlert(server.client())
            _ = try await server.client().answer(again.id, button: "Cancel")
            #expect(try await asyncClick.value.buttonTitle == "Cancel")
            #expect(await MainActor.run { seedDebugLabel } == "Cancel")
        }
    }
}

/// The seeds' `debugLabel`: main-actor state, as a label is.
@MainActor var seedDebugLabel = ""

/// The seeds' `ViewController`, its Click Me written as the seeds write it.
@MainActor
enum SeedViewController {
    /// The `@IBAction`: synchronous, the actions set the label; `completion: nil` picks the completion-handler twin.
    static func clickMe() {
        AlertController.alert(title: "Hello", message: "ViewController's Click Me was pressed.",
                              actionTitles: ["Cancel", "OK"],
                              actions: [{ seedDebugLabel = "Cancel" }, { seedDebugLabel = "OK" }], completion: nil)
    }

    /// The same with async/await.
    static func clickMeAsync() async throws -> RemoteResult {
        try await AlertController.alert(title: "Hello", message: "ViewController's Click Me was pressed.",
                                        actionTitles: ["Cancel", "OK"],
                                        actions: [{ seedDebugLabel = "Cancel" }, { seedDebugLabel = "OK" }])
    }
}
