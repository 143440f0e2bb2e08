import MicroHTTP

extension APIHandler {
    /// `Expect: 100-continue`: a request whose token may not make it is refused (401, 403) before the
    /// client sends its body; libmicrohttpd sends `100 Continue` only when this returns nil.
    public func continuation(for request: HTTPRequest) -> HTTPResponse? {
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
        observe(request, route: match.route.template.text, caller: caller?.name)
        return problem.response
    }
}
