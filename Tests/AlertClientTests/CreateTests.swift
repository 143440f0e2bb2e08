import AlertClient
import Foundation
import HTTPTestSupport
import Testing

@Suite("AlertClient.create")
struct CreateTests {
    @Test("creates an alert and returns it normalized")
    func createNormalizes() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let input = AlertInput(
                title: "Discard changes?", message: "You have unsaved edits.", tag: -42, presenter: "editor",
                animated: false, buttons: [.destructive("Discard"), .cancel("Keep Editing"), "Save"], timeout: 300)
            let alert = try await client.create(input)
            #expect(alert.id.count == 22)
            #expect(alert.title == "Discard changes?")
            #expect(alert.message == "You have unsaved edits.")
            #expect(alert.style == "alert")
            #expect(alert.alertStyle == .alert)
            #expect(alert.tag == -42)
            #expect(alert.presenter == "editor")
            #expect(alert.animated == false)
            #expect(alert.buttons.map(\.title) == ["Keep Editing", "Discard", "Save"])
            #expect(alert.buttons.map(\.index) == [0, 1, 2])
            #expect(alert.buttons[0].isCancel && alert.cancelButton?.title == "Keep Editing")
            #expect(alert.buttons[1].isDestructive)
            #expect(alert.isPending && alert.state == "pending" && alert.result == nil)
            #expect(alert.expiresAt != nil)
        }
    }

    @Test("a retry with the same Idempotency-Key returns the alert the first request created")
    func idempotentRetry() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let input = AlertInput(title: "Deploy 42?", buttons: ["Cancel", "Deploy"])
            let first = try await client.create(input, idempotencyKey: "deploy-42")
            let retried = try await client.create(input, idempotencyKey: "deploy-42")
            #expect(retried.id == first.id)
            #expect(retried.title == "Deploy 42?" && retried.isPending)
        }
    }

    @Test("a simple alert gets one OK button, which is its cancel button for dismissal")
    func simpleAlert() async throws {
        try await LiveAlertd.with { server in
            let alert = try await server.client().create(AlertInput(message: "Disk full"))
            #expect(alert.buttons == [RemoteButton(index: 0, title: "OK", style: "default")])
            #expect(alert.cancelButton?.title == "OK")
            #expect(alert.presenter == "root")
            #expect(alert.expiresAt == nil)
        }
    }

    @Test("destructive titles, fields with keyboards, and an action sheet")
    func destructiveFieldsAndSheets() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let login = try await client.create(
                AlertInput(
                    title: "Login", buttons: ["Cancel", "Log in"],
                    fields: [
                        FieldInput(placeholder: "Email", text: "a@example.com", keyboard: .emailAddress),
                        FieldInput(placeholder: "Password", secure: true, keyboard: .asciiCapable),
                    ]))
            #expect(login.fields.map(\.placeholder) == ["Email", "Password"])
            #expect(login.fields.map(\.keyboard) == ["emailAddress", "asciiCapable"])
            #expect(login.fields.map(\.keyboardType) == [.emailAddress, .asciiCapable])
            #expect(login.fields.map(\.secure) == [false, true])
            #expect(login.fields[0].text == "a@example.com")
            let sheet = try await client.create(
                AlertInput(
                    title: "Delete this photo?", style: .actionSheet, tag: 7, buttons: ["Cancel", "Delete Photo"],
                    destructive: ["Delete Photo"]))
            #expect(sheet.style == "actionSheet")
            #expect(sheet.buttons.map(\.style) == ["cancel", "destructive"])
            #expect(sheet.fields.isEmpty)
        }
    }

    @Test("every Keyboard case is a keyboard alertd knows, by the same name")
    func everyKeyboard() async throws {
        try await LiveAlertd.with { server in
            let fields = Keyboard.allCases.prefix(8).map { FieldInput(placeholder: $0.rawValue, keyboard: $0) }
            let rest = Keyboard.allCases.dropFirst(8).map { FieldInput(placeholder: $0.rawValue, keyboard: $0) }
            let first = try await server.client().create(AlertInput(title: "Keys", fields: Array(fields)))
            let second = try await server.client().create(AlertInput(title: "More keys", fields: Array(rest)))
            #expect((first.fields + second.fields).map(\.keyboardType) == Keyboard.allCases.map(Optional.some))
            #expect(Keyboard.allCases.count == 12 && Keyboard.asciiCapableNumberPad.rawUIKitValue == 11)
        }
    }

    @Test("a 422 surfaces as .server with the problem and each bad member's pointer")
    func validationProblem() async throws {
        try await LiveAlertd.with { server in
            let client = server.client()
            let error = await #expect(throws: AlertClientError.self) {
                try await client.create(AlertInput(title: "x", presenter: "not a presenter", buttons: ["A", "B"],
                                                   destructive: ["Nope"]))
            }
            #expect(error?.kind == .server)
            #expect(error?.status == 422)
            #expect(error?.problem?.type == "urn:alertd:problem:validation-failed")
            let pointers = error?.problem?.errors.compactMap(\.pointer) ?? []
            #expect(pointers.contains { $0.hasPrefix("/presenter") || $0.hasPrefix("/destructive") }, "\(pointers)")
            #expect(error.map { String(describing: $0) }?.contains("HTTP 422") == true)

            let sheetFields = await #expect(throws: AlertClientError.self) {
                try await client.create(AlertInput(title: "x", style: .actionSheet, fields: [FieldInput()]))
            }
            #expect(sheetFields?.problem?.errors.first?.pointer?.hasPrefix("/fields") == true)

            let empty = await #expect(throws: AlertClientError.self) {
                try await client.create(AlertInput())
            }
            #expect(empty?.status == 422)
        }
    }

    @Test("an idempotency key is accepted (sent as a header)")
    func idempotencyKey() async throws {
        try await LiveAlertd.with { server in
            let alert = try await server.client().create(AlertInput(message: "hi"), idempotencyKey: "key-1")
            #expect(alert.isPending)
        }
    }
}

@Suite("AlertClient.createRetrying")
struct CreateRetryingTests {
    @Test("a connection lost while the server restarts is retried with the same key until it is back: one alert")
    func retriesAcrossARestart() async throws {
        let first = try LiveAlertd.start()
        let port = first.port
        let proxy = try FlakyProxy(upstream: port)
        defer { proxy.down() }
        await first.app.shutdown()
        // The proxy still accepts, and cuts each connection it cannot forward: to the client, a lost connection.
        let client = AlertClient(baseURL: URL(string: "http://127.0.0.1:\(proxy.port)")!)
        let input = AlertInput(title: "Deploy 43?", buttons: ["Cancel", "Deploy"])
        let creating = Task { try await client.createRetrying(input, idempotencyKey: "deploy-43",
                                                              giveUpAfter: .seconds(120)) }
        try await Task.sleep(for: .milliseconds(700))  // not ordering: the outage, which the create lives through
        let second = try LiveAlertd.start(port: port)
        let alert = try await creating.value
        // Its response lost: the same call again gets the same alert, and the server holds one.
        let again = try await client.createRetrying(input, idempotencyKey: "deploy-43", giveUpAfter: .seconds(5))
        let pending = try await second.client().list(state: "pending")
        await second.app.shutdown()
        #expect(again.id == alert.id)
        #expect(pending.alerts.map(\.id) == [alert.id])
    }

    @Test("a server that cannot be connected to at all: .unreachable at once, as for every call, not retried")
    func refusedAtOnce() async throws {
        let client = AlertClient(baseURL: URL(string: "http://127.0.0.1:1")!)
        let start = ContinuousClock.now
        let error = await #expect(throws: AlertClientError.self) {
            try await client.createRetrying(AlertInput(title: "Anyone?"), giveUpAfter: .seconds(60))
        }
        #expect(error?.kind == .unreachable)
        #expect(ContinuousClock.now - start < .seconds(TestTime.sooner(than: 60)), "it gave up only after the limit")
    }
}
