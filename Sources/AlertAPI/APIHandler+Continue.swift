import MicroHTTP

extension APIHandler {
    /// `Expect: 100-continue`: a request whose token may not make it is refused (401, 403) before the
    /// client sends its body; libmicrohttpd sends `100 Continue` only when this returns nil.
    func continuation(for request: HTTPRequest) -> HTTPResponse? {
        let started = ContinuousClock.now
        // An unknown path or method is answered once the (small) body is in, as without Expect.
        guard let match = Self.route(for: request.path),
              let action = match.route.endpoint(for: request.method)?.action
        else { return nil }
        var caller: Caller?
        let problem: Problem
        do {
            caller = try authenticate(request, action)
            try authorize(caller!, action)
            return nil
        } catch {
            problem = error
        }
        let reply = instrument(.response(problem.response), id: Self.requestID(request.headers["x-request-id"]),
                               route: match.route.template.text, method: Self.methodLabel(request.method),
                               caller: caller?.name, started: started)
        guard case .response(let response) = reply else { return problem.response }
        return response
    }
}
