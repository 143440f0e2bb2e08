import AlertCore
import AlertModel
import JSON
import MicroHTTP

extension HTTPResponse {
    /// An `application/json` response.
    static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// The alert, its secure values hidden unless `caller` may see them.
    static func json(_ status: Int, alert: Alert, for caller: Caller) -> HTTPResponse {
        var writer = JSONWriter()
        writer.write(alert, redactingSecrets: !caller.seesSecrets(of: alert))
        return .json(status, writer.bytes)
    }

    /// 200 with the alert's result, secure values hidden unless `caller` may see them; 204 while pending.
    static func json(resultOf alert: Alert, for caller: Caller) -> HTTPResponse {
        guard let result = alert.result else { return HTTPResponse(status: 204) }
        var writer = JSONWriter()
        writer.write(result, fields: caller.seesSecrets(of: alert) ? nil : alert.fields)
        return .json(200, writer.bytes)
    }

    static func json(_ status: Int, result: AlertResult) -> HTTPResponse {
        var writer = JSONWriter()
        writer.write(result, fields: nil)
        return .json(status, writer.bytes)
    }
}
