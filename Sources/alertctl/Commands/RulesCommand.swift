import AlertClient
import CommandLineText
import Foundation
import JSON

/// `alertctl rules list|show|add|delete`: the rules that answer alerts (`/v1/rules`, admin tokens only).
struct RulesCommand: Subcommand {
    static let name = "rules"
    static let summary = "List, show, add and delete the rules that answer alerts (admin tokens)."
    static let usage = """
        alertctl rules list [--json]
               alertctl rules show NAME [--json]
               alertctl rules add NAME --button TITLE [--owner GLOB] [--presenter GLOB] [--tag N] [--title GLOB]
                                  [--tool GLOB] [--input MEMBER=GLOB ...] [--expires DURATION|RFC3339] [--json]
               alertctl rules delete NAME [--json]
        """
    static let discussion = """
        A rule answers every pending alert it matches with its button, at once and as responder
        rule:NAME: when it is added, and each matching alert created later. Every matcher given must
        match, and at least one is given. Globs: * any run of characters, ? any one, anything else
        itself. --input matches a member of an agent's approval's tool input (needs --tool). A rule
        never answers an alert that names who may answer it (responders, groups, fourEyes, quorum).
        --expires: a duration (90s, 12h, 7d) or an RFC 3339 time; after it the rule answers nothing.
        Only admin tokens may read or change rules. Exit status 4 when alertd refuses (not an admin,
        a name taken, a bad rule: each bad option is named), 5 when there is no rule of that name.
        """
    static let options: [CommandLineOption] = [
        .option("--button", "-b", value: "TITLE", help: "add: the title of the button to answer with"),
        .option("--owner", value: "GLOB", help: "add: match the alert's owner (the producer's token name)"),
        .option("--presenter", "-p", value: "GLOB", help: "add: match the alert's presenter"),
        .option("--tag", value: "N", help: "add: match the alert's tag exactly"),
        .option("--title", "-t", value: "GLOB", help: "add: match the alert's title"),
        .option("--tool", value: "GLOB", help: "add: match an agent's approval's tool (Bash)"),
        .option("--input", value: "MEMBER=GLOB", repeatable: true,
                help: "add: match a member of the tool's input (repeat; needs --tool)"),
        .option("--expires", value: "WHEN", help: "add: stop matching after a duration (7d) or at an RFC 3339 time"),
        .json,
    ]

    /// What to do.
    enum Action: Equatable {
        case list
        case show(String)
        case add(RuleInput)
        case delete(String)
    }

    let action: Action
    let json: Bool

    /// The options only `add` takes.
    private static let addOptions = ["--button", "--owner", "--presenter", "--tag", "--title", "--tool", "--input",
                                     "--expires"]

    init(_ arguments: ParsedCommandLine) throws(UsageError) {
        json = arguments.has("--json")
        guard let verb = arguments.positionals.first else {
            throw UsageError("missing what to do: list, show NAME, add NAME or delete NAME")
        }
        if verb != "add", let option = Self.addOptions.first(where: { !arguments.all($0).isEmpty }) {
            throw UsageError("\(option) is for 'rules add' only")
        }
        let rest = Array(arguments.positionals.dropFirst())
        func name() throws(UsageError) -> String {
            guard let name = rest.first else { throw UsageError("missing NAME (rules \(verb) NAME)") }
            if rest.count > 1 { throw UsageError("unexpected argument '\(rest[1])'") }
            return name
        }
        switch verb {
        case "list", "ls":
            if let extra = rest.first { throw UsageError("unexpected argument '\(extra)'") }
            action = .list
        case "show", "get":
            action = .show(try name())
        case "delete", "rm", "remove":
            action = .delete(try name())
        case "add":
            action = .add(try Self.rule(named: try name(), arguments))
        default:
            throw UsageError("unknown rules action '\(verb)'"
                + CommandLineText.suggestion(for: verb, in: ["list", "show", "add", "delete"]))
        }
    }

    /// The rule `rules add NAME` describes.
    private static func rule(named name: String, _ arguments: ParsedCommandLine) throws(UsageError) -> RuleInput {
        guard let button = arguments.value("--button") else { throw UsageError("add needs --button TITLE") }
        var input: [String: String] = [:]
        for member in arguments.all("--input") {
            guard let equals = member.firstIndex(of: "="), equals != member.startIndex else {
                throw UsageError("--input needs MEMBER=GLOB, such as command='git status*'; got '\(member)'")
            }
            input[String(member[..<equals])] = String(member[member.index(after: equals)...])
        }
        var tag: Int64?
        if let text = arguments.value("--tag") {
            guard let number = Int64(text) else { throw UsageError("--tag needs a whole number; got '\(text)'") }
            tag = number
        }
        let match = RuleMatch(
            owner: arguments.value("--owner"), presenter: arguments.value("--presenter"), tag: tag,
            title: arguments.value("--title"), tool: arguments.value("--tool"), toolInput: input)
        if match.matchers.isEmpty {
            throw UsageError("add needs at least one of --owner, --presenter, --tag, --title, --tool: a rule that "
                + "matches every alert is not allowed")
        }
        return RuleInput(name: name, match: match, button: button, expiresIn: try expiresIn(arguments))
    }

    /// `--expires` as seconds from now: a duration, or an RFC 3339 time still to come.
    private static func expiresIn(_ arguments: ParsedCommandLine) throws(UsageError) -> Double? {
        guard let text = arguments.value("--expires") else { return nil }
        if let date = Age.date(text) {
            let seconds = date.timeIntervalSinceNow
            guard seconds > 0 else { throw UsageError("--expires \(text) has passed already") }
            return seconds
        }
        return try arguments.seconds("--expires")
    }

    func run(_ context: CommandContext) async -> ExitCode {
        do throws(AlertClientError) {
            switch action {
            case .list:
                let rules = try await context.client.rules()
                if json {
                    Console.json(Self.json(.object(["rules": .array(rules.map(Self.value))])))
                } else {
                    Console.out(rules.isEmpty ? "no rules" : Self.table(rules))
                }
            case .show(let name):
                print(try await context.client.rule(name))
            case .add(let input):
                let rule = try await context.client.createRule(input)
                if json { return print(rule) }
                let answered = rule.answered ?? []
                Console.out("rule \(rule.name) made: \(Self.matchText(rule.match)) \u{2192} \(rule.button)"
                    + (answered.isEmpty ? "" : "; it answered \(answered.count) pending: "
                        + answered.joined(separator: " ")))
            case .delete(let name):
                let rule = try await context.client.deleteRule(name)
                if json { return print(rule) }
                Console.out("rule \(rule.name) deleted (what it answered stays answered)")
            }
            return .ok
        } catch {
            return report(error, context)
        }
    }

    /// Prints one rule as `NAME: value` lines, or JSON.
    @discardableResult
    private func print(_ rule: RemoteRule) -> ExitCode {
        if json {
            Console.json(Self.json(Self.value(rule)))
            return .ok
        }
        var lines = [("name", rule.name)] + rule.match.matchers.map { ("match \($0.name)", $0.text) }
        lines += [("button", rule.button), ("responder", rule.responder),
                  ("expires", rule.expiresAt.map { $0 + (rule.expired ? " (expired)" : "") } ?? "never"),
                  ("created", rule.createdAt + (rule.createdBy.map { " by \($0)" } ?? ""))]
        let width = lines.map(\.0.count).max() ?? 0
        Console.out(lines.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
            + VisibleText.escaped($0.1) }.joined(separator: "\n"))
        return .ok
    }

    /// alertd's refusals in alertctl's words: 403 says admins only, 409 that the name is taken, 422 names the
    /// option behind each bad member.
    private func report(_ error: AlertClientError, _ context: CommandContext) -> ExitCode {
        switch error.status {
        case 403:
            Console.err("alertctl: only an admin token may read or change rules: \(error.reason)")
            return .rejected
        case 409 where error.problem?.type == "urn:alertd:problem:rule-exists":
            Console.err("alertctl: \(error.problem?.detail ?? "a rule of this name exists already") "
                + "(delete it first, or choose another name)")
            return .rejected
        case 422:
            let issues = error.problem?.errors ?? []
            let lines = issues.map { "\n  \(Self.option(for: $0.pointer ?? "")): \($0.detail)" }
            Console.err("alertctl: alertd refused the rule: \(error.problem?.detail ?? "invalid")" + lines.joined())
            return .rejected
        default:
            return Failure.report(error, context, json: json)
        }
    }

    /// The option a pointer into the rule's body comes from: `/match/title` is `--title`.
    static func option(for pointer: String) -> String {
        let parts = pointer.split(separator: "/").map(String.init)
        switch parts.first {
        case "name": return "NAME"
        case "button": return "--button"
        case "expiresIn": return "--expires"
        case "match" where parts.count >= 3 && parts[1] == "toolInput": return "--input \(parts[2])"
        case "match" where parts.count == 2: return parts[1] == "toolInput" ? "--input" : "--\(parts[1])"
        default: return pointer.isEmpty ? "the rule" : pointer
        }
    }

    /// `presenter=ops title="Deploy*"`: the matchers, a text with spaces quoted.
    static func matchText(_ match: RuleMatch) -> String {
        match.matchers.map { matcher in
            let text = matcher.text.contains(where: { $0 == " " || $0 == "\"" }) ? "\"\(matcher.text)\"" : matcher.text
            return "\(matcher.name)=\(VisibleText.escaped(text))"
        }.joined(separator: " ")
    }

    /// The table of `rules list`: NAME, MATCH, BUTTON, EXPIRES, CREATED BY.
    static func table(_ rules: [RemoteRule]) -> String {
        var rows = [["NAME", "MATCH", "BUTTON", "EXPIRES", "CREATED BY"]]
        for rule in rules {
            let expires = rule.expired ? "expired" : rule.expiresAt ?? "never"
            rows.append([rule.name, matchText(rule.match), rule.button, expires, rule.createdBy ?? "-"]
                .map(VisibleText.escaped))
        }
        return AlertTable.align(rows)
    }

    // MARK: JSON

    private static func json(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.write(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A rule with its members in the order of `openapi.yaml`, `null` written out.
    private static func value(_ rule: RemoteRule) -> JSONValue {
        var match: [(String, JSONValue)] = []
        for (name, text) in [("owner", rule.match.owner), ("presenter", rule.match.presenter)] {
            if let text { match.append((name, .string(text))) }
        }
        if let tag = rule.match.tag { match.append(("tag", .integer(tag))) }
        for (name, text) in [("title", rule.match.title), ("tool", rule.match.tool)] {
            if let text { match.append((name, .string(text))) }
        }
        if let input = rule.match.toolInput {
            let members = input.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }
            match.append(("toolInput", .object(JSONObject(members))))
        }
        var members: [(String, JSONValue)] = [
            ("name", .string(rule.name)), ("match", .object(JSONObject(match))), ("button", .string(rule.button)),
            ("responder", .string(rule.responder)), ("expiresAt", rule.expiresAt.map(JSONValue.string) ?? .null),
            ("expired", .bool(rule.expired)), ("createdBy", rule.createdBy.map(JSONValue.string) ?? .null),
            ("createdAt", .string(rule.createdAt)),
        ]
        if let answered = rule.answered { members.append(("answered", .array(answered.map(JSONValue.string)))) }
        return .object(JSONObject(members))
    }
}
