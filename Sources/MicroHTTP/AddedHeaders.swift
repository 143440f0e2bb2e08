/// Header fields a handler adds to whatever response its request gets (`HTTPRequest.addResponseHeader`). The
/// first two are kept inline: tagging every request (an id, an instance) allocates nothing.
struct AddedHeaders {
    private var first: HTTPHeaders.Field?
    private var second: HTTPHeaders.Field?
    private var rest: [HTTPHeaders.Field] = []

    mutating func add(_ name: String, _ value: String) {
        let field = HTTPHeaders.Field(name: name, value: value)
        if first == nil {
            first = field
        } else if second == nil {
            second = field
        } else {
            rest.append(field)
        }
    }

    /// Calls `body` with each field, in the order added.
    func forEach(_ body: (HTTPHeaders.Field) -> Void) {
        guard let first else { return }
        body(first)
        guard let second else { return }
        body(second)
        rest.forEach(body)
    }

    /// `headers` with these fields after its own.
    func applied(to headers: HTTPHeaders) -> HTTPHeaders {
        var headers = headers
        forEach { headers.add($0.name, $0.value) }
        return headers
    }
}
