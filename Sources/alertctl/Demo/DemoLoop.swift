import AlertClient

/// The demo's event loop: terminal input and alert outcomes on one stream, applied to one `DemoState`.
/// Alerts go through `AlertController`, with the seed's action closures.
struct DemoLoop: Sendable {
    let client: AlertClient
    let ascii: Bool

    /// Runs until the user quits; returns an error message when the terminal could not be used.
    func run() async -> String? {
        let (events, input) = AsyncStream<DemoEvent>.makeStream()
        let signals = SignalWatcher { _ in input.yield(.interrupted) }
        let terminal = TerminalSession(ascii: ascii) { input.yield(.terminal($0)) }
        let controller = AlertController(client: client)
        var state = DemoState(serverURL: client.baseURL.absoluteString)
        var waiting: Task<Void, Never>?
        var failure: String?
        loop: for await event in events {
            for effect in state.handle(event) {
                switch effect {
                case .present(let prompt):
                    waiting = Task { await Self.present(prompt, with: controller, emit: { input.yield($0) }) }
                case .repaint:
                    terminal.repaint()
                case .quit(let alertID):
                    waiting?.cancel()
                    if let alertID { await withdraw(alertID) }
                    break loop
                case .fail(let reason):
                    failure = reason
                    break loop
                }
            }
            if let canvas = DemoRenderer.render(state) { terminal.show(canvas) }
        }
        await terminal.stop()
        signals.cancel()
        input.finish()
        return failure
    }

    /// Puts up the alert for `prompt` and runs the chosen button's action, as the seed's `AlertController` does.
    private static func present(
        _ prompt: DemoPrompt, with controller: AlertController, emit: @escaping @Sendable (DemoEvent) -> Void
    ) async {
        let input = prompt.input
        // One action per button: each logs its title in the debug label; PopView's also dismisses the PopView.
        let actions: [@Sendable () -> Void] = input.buttons.map { button in
            switch prompt {
            case .clickMe: { emit(.log(button.title)) }
            case .dismissPopView: { emit(.log(button.title)); emit(.dismissPopView) }
            }
        }
        do throws(AlertClientError) {
            let result = try await controller.present(input) { emit(.created(prompt, alertID: $0.id)) }
            if result.isAnswered, actions.indices.contains(result.buttonIndex) { actions[result.buttonIndex]() }
            emit(.resolved(prompt, result))
        } catch {
            if error.kind != .cancelled { emit(.failed(prompt, error)) }
        }
    }

    /// Withdraws the outstanding alert on quit (the app that asked is going away), giving up after 2 s.
    private func withdraw(_ alertID: String) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [client] in _ = try? await client.dismiss(alertID) }
            group.addTask { try? await Task.sleep(for: .seconds(2)) }
            await group.next()
            group.cancelAll()
        }
    }
}
