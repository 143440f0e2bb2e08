import AlertServer
import HTTPTestSupport

/// Alerts and checks shared by the dashboard and demo tests.
enum DashboardFixtures {
    /// The seeds' login alert: a username and a secure password field.
    static let login = """
        {"title":"Login","message":"Enter your credentials","buttons":["Cancel","Log in"],
         "fields":[{"placeholder":"Username"},{"placeholder":"Password","secure":true,"keyboard":"asciiCapable"}]}
        """

    /// A login alert whose fields come filled in: a cancel answers with what was typed into the username and the
    /// password's original text, whatever was typed over it.
    static let prefilledLogin = """
        {"title":"Login","message":"Enter your credentials","buttons":["Cancel","Log in"],
         "fields":[{"placeholder":"Username","text":"alice"},{"placeholder":"Password","secure":true,"text":"0ld-pw"}]}
        """

    /// A WCSAlertController-style action sheet with a destructive button.
    static let photoSheet = """
        {"title":"Delete this photo?","message":"It will be removed from all your devices.","style":"actionSheet",
         "presenter":"photos","buttons":["Cancel","Delete","Move to album"],"destructive":["Delete"]}
        """

    /// The SGR parameters (`1;31`, …) in force where `text` starts on a captured line, from the escape
    /// sequences right before it.
    static func sgr(before text: String, in screen: String) -> String {
        guard let line = screen.components(separatedBy: "\n").first(where: { $0.contains(text) }),
              let start = line.range(of: text)?.lowerBound
        else { return "" }
        var parameters: [String] = []
        var prefix = line[..<start]
        while prefix.hasSuffix("m"), let escape = prefix.range(of: "\u{1B}[", options: .backwards) {
            parameters.insert(String(prefix[escape.upperBound..<prefix.index(before: prefix.endIndex)]), at: 0)
            prefix = prefix[..<escape.lowerBound]
        }
        return parameters.joined(separator: ";")
    }

    /// An in-process alertd on `port` (0: any), quiet.
    static func startServer(port: Int) throws -> AlertdApp {
        var configuration = AlertdConfiguration()
        configuration.http.host = "127.0.0.1"
        configuration.http.port = port
        configuration.shutdownGrace = .seconds(2)
        configuration.logDescriptor = nil
        return try AlertdApp(configuration: configuration)
    }

    /// Starts a server on a free port below Linux's ephemeral range (32768 and up), so that it can be restarted
    /// on the same port: a port from `port: 0` is an ephemeral one, which a client socket of a test running
    /// alongside may take once the first server has closed it.
    static func startServerOnFixedPort() throws -> AlertdApp {
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                return try startServer(port: Int.random(in: 20_000..<32_000))
            } catch {
                lastError = error
            }
        }
        throw lastError!
    }

    /// POSTs `body` to a server the test started itself; returns the status.
    static func post(port: Int, _ target: String, _ body: String) async throws -> Int {
        try await RawHTTP.exchange(RawHTTP.request("POST", target, body: Array(body.utf8)), port: port).status
    }
}
