import AlertClient

/// The seed app's screens: `ViewController` with "Click Me", "Show secret" and `debugLabel`, and the `PopView`
/// it presents. Pure; changed only by `handle(_:)` on the demo's event loop.
struct DemoState: Sendable {
    enum Screen: Sendable, Equatable {
        case viewController
        case popView
    }

    /// An alert put up and not yet resolved; the app is modal meanwhile, as UIKit is.
    struct Outstanding: Sendable, Equatable {
        var prompt: DemoPrompt
        var alertID: String?
    }

    let serverURL: String
    var screen: (rows: Int, columns: Int, glyphs: Glyphs)?
    var presented = Screen.viewController
    /// The focused button of the root screen: 0 "Click Me", 1 "Show secret".
    var focus = 0
    /// The seeds' `debugLabel`: the title of the last button pressed.
    var debugLabel = ""
    var outstanding: Outstanding?
    var notice: Notice?

    static let rootButtons = ["Click Me", "Show secret"]
    static let popViewButton = "Dismiss"

    init(serverURL: String) {
        self.serverURL = serverURL
    }

    mutating func handle(_ event: DemoEvent) -> [DemoEffect] {
        switch event {
        case .terminal(.ready(let rows, let columns, let glyphs)):
            screen = (rows, columns, glyphs)
        case .terminal(.resized(let rows, let columns)):
            screen?.rows = rows
            screen?.columns = columns
        case .terminal(.key(let key)):
            return handle(key)
        case .terminal(.failed(let reason)):
            return [.fail(reason)]
        case .interrupted:
            return [.quit(withdrawing: outstanding?.alertID)]
        case .created(let prompt, let id):
            if outstanding?.prompt == prompt { outstanding?.alertID = id }
        case .log(let title):
            debugLabel = title
        case .dismissPopView:
            presented = .viewController
        case .resolved(_, let result):
            outstanding = nil
            notice = switch result.resolution {
            case "dismissed": .warning("the alert was dismissed: \(result.buttonTitle)")
            case "expired": .warning("the alert expired: \(result.buttonTitle)")
            default: .success("answered: \(result.buttonTitle)")
            }
        case .failed(_, let error):
            outstanding = nil
            notice = .warning("the alert failed: \(error)")
        }
        return []
    }

    private mutating func handle(_ key: Key) -> [DemoEffect] {
        switch key {
        case .character("q"), .character("Q"), .control("c"):
            return [.quit(withdrawing: outstanding?.alertID)]
        case .control("l"):
            return [.repaint]
        default:
            break
        }
        guard outstanding == nil else { return [] }
        switch presented {
        case .viewController:
            switch key {
            case .character("1"): return press(0)
            case .character("2"): return press(1)
            case .up, .left: focus = 0
            case .down, .right, .tab: focus = (focus + 1) % 2
            case .enter, .character(" "): return press(focus)
            default: break
            }
        case .popView:
            switch key {
            case .character("1"), .enter, .character(" "): return press(0)
            default: break
            }
        }
        return []
    }

    /// A button of the screen on top was pressed.
    private mutating func press(_ button: Int) -> [DemoEffect] {
        notice = nil
        switch (presented, button) {
        case (.viewController, 0):
            debugLabel = "Click Me"
            return present(.clickMe)
        case (.viewController, _):
            debugLabel = "Show Secret"
            presented = .popView
            return []
        case (.popView, _):
            return present(.dismissPopView)
        }
    }

    private mutating func present(_ prompt: DemoPrompt) -> [DemoEffect] {
        outstanding = Outstanding(prompt: prompt)
        return [.present(prompt)]
    }
}
