import AlertCore
import AlertModel
import MicroHTTP

/// Typed access to a request's query parameters; each failure is a 400 problem naming
/// the parameter.
struct QueryParameters {
    let request: HTTPRequest

    /// The longest `wait` the contract allows, in seconds.
    static let maxWait = 300

    /// `wait`: whole seconds, 0–300; absent means 0.
    func wait() throws(Problem) -> Duration {
        .seconds(try integer("wait", in: 0...Self.maxWait) ?? 0)
    }

    /// An unsigned integer parameter within `range`, or nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(Problem) -> Int? {
        guard let text = request.queryValue(name) else { return nil }
        guard let value = Self.digits(text).flatMap({ Int($0) }), range.contains(value) else {
            throw .invalidParameter(name, "\(name) must be a whole number from \(range.lowerBound) to "
                + "\(range.upperBound); got '\(text)'")
        }
        return value
    }

    /// `index`: the change index a blocking query waits past.
    func index() throws(Problem) -> UInt64? {
        try uint64("index")
    }

    /// An unsigned 64-bit integer parameter, or nil when absent.
    func uint64(_ name: String) throws(Problem) -> UInt64? {
        guard let text = request.queryValue(name) else { return nil }
        guard let value = Self.digits(text).flatMap({ UInt64($0) }) else {
            throw .invalidParameter(name, "\(name) must be a whole number ≥ 0; got '\(text)'")
        }
        return value
    }

    /// `type`: a comma-separated list of event kinds; absent means all.
    func eventKinds() throws(Problem) -> Set<AlertEvent.Kind> {
        guard let text = request.queryValue("type") else { return [] }
        var kinds: Set<AlertEvent.Kind> = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let kind = AlertEvent.Kind(rawValue: String(name)) else {
                let names = AlertEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidParameter("type", "type must be a comma-separated list of \(names); got '\(text)'")
            }
            kinds.insert(kind)
        }
        return kinds
    }

    /// `state`: pending (default), resolved or all.
    func state() throws(Problem) -> ListQuery.StateFilter {
        guard let text = request.queryValue("state") else { return .pending }
        guard let state = ListQuery.StateFilter(rawValue: text) else {
            throw .invalidParameter("state", "state must be pending, resolved or all; got '\(text)'")
        }
        return state
    }

    /// `presenter`: a presenter name, `[A-Za-z0-9._-]{1,64}`.
    func presenter() throws(Problem) -> String? {
        guard let text = request.queryValue("presenter") else { return nil }
        guard AlertDraft.isValidPresenter(text) else {
            throw .invalidParameter("presenter", "presenter must match [A-Za-z0-9._-]{1,64}; got '\(text)'")
        }
        return text
    }

    static func digits(_ text: String) -> Substring? {
        !text.isEmpty && text.utf8.count <= 20 && text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) ? text[...] : nil
    }
}
