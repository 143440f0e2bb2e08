import AlertClient

/// The dashboard's single event loop: terminal input, list updates and request outcomes arrive on one
/// `AsyncStream`; each is applied to the one `DashboardState`, its effects are started, and the new screen is
/// handed to the terminal thread.
struct DashboardLoop: Sendable {
    let client: AlertClient
    let presenter: String?
    let ascii: Bool
    /// Whether a new alert rings the bell.
    var bell = true
    /// Whether linked text is drawn as OSC 8 hyperlinks.
    var hyperlinks = false

    /// Runs until the user quits; returns an error message when the terminal could not be used.
    /// Answers one alert and emits how it went (`answered` or `answerFailed`); true when it was answered.
    @discardableResult
    private static func answer(
        _ id: String, buttonIndex: Int, values: [String]?, with client: AlertClient,
        emit input: AsyncStream<DashboardEvent>.Continuation
    ) async -> Bool {
        do throws(AlertClientError) {
            let result = try await client.answer(id, buttonIndex: buttonIndex, values: values)
            input.yield(.answered(alertID: id, result: result))
            return true
        } catch {
            input.yield(.answerFailed(alertID: id, error: error))
            return false
        }
    }

    func run() async -> String? {
        let (events, input) = AsyncStream<DashboardEvent>.makeStream()
        let signals = SignalWatcher { _ in input.yield(.interrupted) }
        let terminal = TerminalSession(ascii: ascii, hyperlinks: hyperlinks) { input.yield(.terminal($0)) }
        var state = DashboardState(serverURL: client.baseURL.absoluteString, presenter: presenter, bell: bell)
        var watcher = watch(presenter, limit: state.listLimit, emit: { input.yield($0) })
        // Who we answer as, once (a server older than answer policies has no /v1/me: every alert stays answerable).
        let identifying = Task { [client] in
            while !Task.isCancelled {
                do throws(AlertClientError) {
                    input.yield(.identified(try await client.me()))
                    return
                } catch {
                    // A server that answers but not this (404 from an older alertd): stop asking.
                    if error.kind == .server { return }
                }
                do { try await Task.sleep(for: .seconds(2)) } catch { return }
            }
        }
        // Ages and countdowns move on once a second.
        let ticker = Task {
            while !Task.isCancelled {
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
                input.yield(.tick)
            }
        }
        var failure: String?
        loop: for await event in events {
            for effect in state.handle(event) {
                switch effect {
                case .quit:
                    break loop
                case .fail(let reason):
                    failure = reason
                    break loop
                case .repaint:
                    terminal.repaint()
                case .bell:
                    terminal.ring()
                case .watch(let presenter):
                    watcher.cancel()
                    watcher = watch(presenter, limit: state.listLimit, emit: { input.yield($0) })
                case .answer(let id, let buttonIndex, let values):
                    Task { [client] in
                        await Self.answer(id, buttonIndex: buttonIndex, values: values, with: client, emit: input)
                    }
                case .answerMany(let ids, let button):
                    Task { [client] in
                        do throws(AlertClientError) {
                            let outcomes = try await client.answer(ids, button: button)
                            input.yield(.answeredMany(button: button, outcomes: outcomes))
                        } catch {
                            input.yield(.answerManyFailed(alertIDs: ids, error: error))
                        }
                    }
                case .answerAndMakeRule(let id, let buttonIndex, let values, let rule):
                    Task { [client] in
                        guard await Self.answer(id, buttonIndex: buttonIndex, values: values, with: client,
                                                emit: input) else { return }
                        do throws(AlertClientError) {
                            input.yield(.ruleMade(try await client.createRule(rule)))
                        } catch {
                            input.yield(.ruleFailed(name: rule.name, error: error))
                        }
                    }
                case .fetch(let id, let purpose):
                    Task { [client] in
                        do throws(AlertClientError) {
                            input.yield(.fetched(try await client.alert(id), purpose: purpose))
                        } catch {
                            input.yield(.fetchFailed(alertID: id, purpose: purpose, error: error))
                        }
                    }
                }
            }
            if let canvas = DashboardRenderer.render(state) { terminal.show(canvas) }
        }
        watcher.cancel()
        ticker.cancel()
        identifying.cancel()
        await terminal.stop()
        signals.cancel()
        input.finish()
        return failure
    }

    /// Starts following the pending list of `presenter` (all when `nil`).
    private func watch(
        _ presenter: String?, limit: Int, emit: @escaping @Sendable (DashboardEvent) -> Void
    ) -> Task<Void, Never> {
        Task { [client] in
            await ListWatcher(client: client, presenter: presenter, limit: limit).run(emit: emit)
        }
    }
}
