import MicroHTTP

extension APIHandler {
    /// `Expect: 100-continue`: a request whose token may not make it is refused (401, 403) before the
    /// client sends its body; libmicrohttpd sends `100 Continue` only when this returns nil.
    func continuation(for request: HTTPRequest) -> HTTPResponse? {
        let started = ContinuousClock.now
        let route = Route(path: request.path)
        // An unknown path or method is answered once the (small) body is in, as without Expect.
        guard route.allows(request.method) else { return nil }
        let action = route.action(for: request.method)
        var caller: Caller?
        let problem: Problem
        do {
            caller = try authenticate(request, action)
            try authorize(caller!, action)
            return nil
        } catch {
            problem = error
        }
        let method = Self.metricMethods.contains(request.method) ? request.method : "other"
        let reply = instrument(.response(problem.response), id: Self.requestID(request.headers["x-request-id"]),
                               route: route.template, method: method, caller: caller?.name, started: started)
        guard case .response(let response) = reply else { return problem.response }
        return response
    }
}
