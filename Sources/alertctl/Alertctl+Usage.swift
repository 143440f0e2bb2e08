extension Alertctl {
    /// `alertctl --help`.
    static var usage: String {
        let list = commands.map { command in
            let names = ([command.name] + command.aliases.map { "(\($0))" }).joined(separator: " ")
            return "  " + names.padding(toLength: 14, withPad: " ", startingAt: 0) + firstSentence(command.summary)
        }
        return """
            alertctl: put questions to people through alertd, and answer them.

            Usage: alertctl [--url URL] COMMAND [options]

            Commands:
            \(list.joined(separator: "\n"))
              dashboard     Full-screen terminal dashboard to answer pending alerts
              demo          The seeds' sample app, answered from the dashboard

            Global options:
              --url URL     alertd's URL (default: $ALERTD_URL, else http://127.0.0.1:8080)
              -h, --help    Show this help; 'alertctl COMMAND --help' shows a command's
              --version     Print the version and the git revision

            Environment:
              ALERTD_URL         alertd's URL
              ALERTD_TOKEN       bearer token for an alertd that has tokens
              ALERTD_TOKEN_FILE  file whose first line is the token (when ALERTD_TOKEN is unset)

            Exit status:
              0  success; for 'alert --wait' and 'wait': a button other than cancel was chosen
              1  the cancel button was chosen, or the alert was dismissed or expired
              2  usage error
              3  cannot reach alertd
              4  alertd rejected the request (its problem and each bad field are printed)
              5  no such alert
              6  the alert had already resolved (the result that won is printed)
              7  'wait --timeout' passed while the alert was still pending

            Example:
              if alertctl alert "Deploy to prod?" --button Cancel --button Deploy --wait; then ./deploy.sh; fi
            """
    }

    private static func firstSentence(_ text: String) -> String {
        let end = text.firstIndex { ";:.".contains($0) } ?? text.endIndex
        return String(text[..<end])
    }
}
