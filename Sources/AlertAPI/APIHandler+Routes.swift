import AlertCore
import AlertModel
import MicroHTTP

extension APIHandler {
    /// Every endpoint alertd answers, grouped by resource: the path template, then per method the role action
    /// the caller needs (`Role.may`) and the function that answers. `HEAD` is answered as `GET`. A request is
    /// checked in this order: browsers (`BrowserGuard`), path (404), method (405 with `Allow`), token (401),
    /// role (403), then the endpoint function (its own 400, 404, 422, 429, ...).
    static let routes: [Route] = [
        Route("/healthz", [
            .get(.readPublic) { handler, _ in .response(handler.health()) },
        ]),
        Route("/openapi.yaml", [
            .get(.readPublic) { handler, route in .response(handler.openAPI(route)) },
        ]),
        Route("/metrics", [
            .get(.readMetrics) { handler, _ in handler.metricsText() },
        ]),
        Route("/v1/alerts", [
            .get(.list) { handler, route throws(Problem) in try handler.listAlerts(route) },
            .post(.create) { handler, route throws(Problem) in try handler.createAlert(route) },
        ]),
        Route("/v1/alerts/{id}", [
            .get(.read) { handler, route throws(Problem) in try handler.read(.alert, route) },
            .delete(.dismiss) { handler, route throws(Problem) in try handler.dismissAlert(route) },
        ]),
        Route("/v1/alerts/{id}/response", [
            .get(.read) { handler, route throws(Problem) in try handler.read(.result, route) },
            .post(.answer) { handler, route throws(Problem) in try handler.answerAlert(route) },
        ]),
        Route("/v1/answers", [
            .post(.answer) { handler, route throws(Problem) in try handler.answerMany(route) },
        ]),
        Route("/v1/rules", [
            .get(.manageRules) { handler, _ in handler.listRules() },
            .post(.manageRules) { handler, route throws(Problem) in try handler.createRule(route) },
        ]),
        Route("/v1/rules/{name}", [
            .get(.manageRules) { handler, route in handler.readRule(route) },
            .delete(.manageRules) { handler, route in handler.deleteRule(route) },
        ]),
        Route("/v1/me", [
            .get(.read) { handler, route in .response(handler.me(route)) },
        ]),
        Route("/v1/events", [
            .get(.follow) { handler, route throws(Problem) in try handler.followEvents(route) },
        ]),
        // MCP's Streamable HTTP transport: POST only, no sessions, so GET and DELETE are 405 (the spec allows both).
        Route("/mcp", [
            .post(.mcp) { handler, route throws(Problem) in try handler.mcp(route) },
        ]),
    ] + pageRoutes

    /// The responder's page (APIHandler+App.swift): no bearer token; its session cookie is checked inside.
    static let pageRoutes: [Route] = [
        Route("/app", [.get(.readPublic) { handler, route in handler.appHome(route) }]),
        Route("/app/app.css", [.get(.readPublic) { handler, route in handler.appStyles(route) }]),
        Route("/app/sign-in", [.post(.readPublic) { handler, route in handler.appSignIn(route) }]),
        Route("/app/sign-out", [.post(.readPublic) { handler, route in handler.appSignOut(route) }]),
        Route("/app/link", [
            .get(.readPublic) { handler, route in handler.appLink(route) },
            .post(.readPublic) { handler, route in handler.appUseLink(route) },
        ]),
        Route("/app/answer", [.post(.readPublic) { handler, route throws(Problem) in try handler.appLinkAnswer(route) }]),
        Route("/app/alerts/{id}", [.get(.readPublic) { handler, route in handler.appAlert(route) }]),
        Route("/app/alerts/{id}/response", [.post(.readPublic) { handler, route in handler.appAnswer(route) }]),
    ]

    /// Whether `path` is the responder page's (`/app`, `/app/…`), whose forms post to the alertd that served them.
    static func isPagePath(_ path: String) -> Bool {
        path == "/app" || path.hasPrefix("/app/")
    }

    /// The metrics and log label of a path no route matches.
    static let unknownRoute = "unknown"

    /// The route `path` names, and its `{id}` (empty for a route without one); nil when none does.
    static func route(for path: String) -> (route: Route, id: AlertID)? {
        for route in routes {
            if let id = route.template.match(path) { return (route, AlertID(rawValue: String(id))) }
        }
        return nil
    }

    /// The metrics and log label of `path`: its route's template, or `unknown`.
    static func routeLabel(_ path: String) -> String {
        route(for: path)?.route.template.text ?? unknownRoute
    }
}
