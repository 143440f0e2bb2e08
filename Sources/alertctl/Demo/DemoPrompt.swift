import AlertClient

/// The two alerts the seed app puts up, as alertd alerts.
enum DemoPrompt: Sendable, Equatable {
    /// ViewController's "Click Me": an alert with Cancel and OK; the pressed title goes to the debug label.
    case clickMe
    /// PopView's dismiss button: one button, addressed to presenter `PopView`; pressing it dismisses the PopView.
    case dismissPopView

    /// The alert to post.
    var input: AlertInput {
        switch self {
        case .clickMe:
            AlertInput(title: "Hello", message: "ViewController's Click Me was pressed.", buttons: ["Cancel", "OK"])
        case .dismissPopView:
            AlertInput(title: "PopView", message: "Bye bye.", presenter: "PopView", buttons: ["OK"])
        }
    }

    /// Who it is addressed to, as the status line says.
    var presenter: String {
        input.presenter ?? "root"
    }
}
