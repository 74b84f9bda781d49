import BrokerHTTP
import BrokerProtocol
import WireFormats

extension APIRouter {
    /// The JSON answer of `endpoint`, typed by it, with sorted keys (stable output for scripts
    /// and tests), written by the same WireJSON coder the client reads it with.
    static func json<Body, Response>(_ endpoint: APIEndpoint<Body, Response>, _ value: Response, status: Int = 200)
        throws(WireError) -> HTTPResponse
    {
        try json(value, status: status)
    }

    private static func json<T: Encodable>(_ value: T, status: Int) throws(WireError) -> HTTPResponse {
        let body: [UInt8]
        do { body = try WireJSON.encode(value) } catch {
            throw WireError(code: .internal, message: "The daemon could not encode its answer (\(T.self)).")
        }
        return HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    }

    /// The error envelope with the status of the error's code.
    static func errorResponse(_ error: WireError) -> HTTPResponse {
        errorResponse(status: error.code.httpStatus, error)
    }

    /// The error envelope with an explicit status (404 for unknown paths, 405 for wrong methods).
    static func errorResponse(status: Int, _ error: WireError) -> HTTPResponse {
        // Encoding two strings cannot fail; the fallback keeps the envelope shape anyway.
        let body =
            (try? WireJSON.encode(ErrorEnvelope(error: error)))
            ?? Array(#"{"error":{"code":"internal","message":"error"}}"#.utf8)
        var headers = HTTPHeaders([("Content-Type", "application/json")])
        if let retryAfter = error.retryAfter { headers.add(name: "Retry-After", value: String(retryAfter)) }
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}

/// The query parameters of one request, checked against what the route accepts: unknown,
/// repeated or undecodable parameters are a 400, not silently ignored.
struct RouterQuery {
    private let fields: [String: String]

    /// The query of `request` as `operation` reads it; an operation that reads none refuses any.
    /// Operations whose `query` is nil do not look at the query string.
    init(_ request: HTTPRequest, operation: APIOperation) throws(WireError) {
        guard let accepted = operation.query else {
            self.init(fields: [:])
            return
        }
        try self.init(request, allowed: Set(accepted.map(\.rawValue)))
    }

    private init(fields: [String: String]) { self.fields = fields }

    private init(_ request: HTTPRequest, allowed: Set<String>) throws(WireError) {
        let decoded: [FormField]
        do { decoded = try request.queryFields() } catch {
            throw WireError(code: .invalidRequest, message: "The query string is malformed: \(error).")
        }
        var fields: [String: String] = [:]
        for field in decoded {
            guard allowed.contains(field.name) else {
                let accepted = allowed.isEmpty ? "none" : allowed.sorted().joined(separator: ", ")
                throw WireError(
                    code: .invalidRequest,
                    message: "Unknown query parameter '\(field.name)' (accepted here: \(accepted)).")
            }
            guard fields[field.name] == nil else {
                throw WireError(code: .invalidRequest, message: "Query parameter '\(field.name)' is given twice.")
            }
            fields[field.name] = field.value
        }
        self.fields = fields
    }

    /// A whole number of seconds within the parameter's range, nil when absent.
    func integer(_ parameter: APIQueryParameter) throws(WireError) -> Int? {
        let name = parameter.rawValue
        let range = parameter.range
        guard let text = fields[name] else { return nil }
        // Digits only: no sign, no spaces, no exponent; at most 9 so it cannot overflow.
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let value = Int(text), range.contains(value)
        else {
            throw WireError(
                code: .invalidRequest,
                message: "'\(name)' must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }

    /// The narrowed token's `scope`, `resource` and `audience`, validated (`TokenNarrowing`).
    func narrowing() throws(WireError) -> TokenNarrowing {
        do {
            return try TokenNarrowing(scope: fields["scope"], resource: fields["resource"], audience: fields["audience"])
        } catch {
            throw WireError(code: .invalidRequest, message: error.description)
        }
    }
}

/// JSON request bodies, decoded as the operation's `APIEndpoint` types them.
enum RouterBody {
    /// The body of an operation that needs one; an empty body is a 400.
    /// `plain` reads the body's usual shape directly (nil: decode generically, which also gives
    /// the error messages); see `DPoPProofRequest.init(plainJSON:)`.
    static func required<Body, Response>(
        _ endpoint: APIEndpoint<Body, Response>, from request: HTTPRequest, plain: (JSONValue) -> Body? = { _ in nil }
    ) throws(WireError) -> Body {
        guard let body = try decode(Body.self, from: request, emptyAllowed: false, plain: plain) else {
            throw WireError(code: .invalidRequest, message: "This request needs a JSON body.")
        }
        return body
    }

    /// The body of an operation whose body is optional: nil when empty.
    static func optional<Body, Response>(_ endpoint: APIEndpoint<Body, Response>, from request: HTTPRequest)
        throws(WireError) -> Body?
    {
        try decode(Body.self, from: request, emptyAllowed: true)
    }

    /// Decodes the body as `T`; an empty body gives nil when `emptyAllowed`, else a 400.
    static func decode<T: Decodable>(
        _ type: T.Type, from request: HTTPRequest, emptyAllowed: Bool, plain: (JSONValue) -> T? = { _ in nil }
    ) throws(WireError) -> T? {
        if request.body.isEmpty {
            guard emptyAllowed else { throw WireError(code: .invalidRequest, message: "This request needs a JSON body.") }
            return nil
        }
        if let contentType = request.headers["Content-Type"],
            !MediaType.first(of: contentType, is: "application/json", list: false)
        {
            throw WireError(code: .invalidRequest, message: "The body must be application/json, not \(contentType).")
        }
        do throws(JSONTooDeep) {
            try JSONNesting.check(request.body)
        } catch {
            throw WireError(
                code: .invalidRequest,
                message: "The JSON body nests deeper than \(error.limit) levels; send the flat object the API documents.")
        }
        do throws(WireJSONError) {
            let json = try WireJSON.parse(request.body)
            if let value = plain(json) { return value }
            return try WireJSON.decode(T.self, from: json)
        } catch {
            throw WireError(code: .invalidRequest, message: Self.describe(error))
        }
    }

    /// A short reason naming the field, without echoing the body (it may hold a client secret).
    private static func describe(_ error: WireJSONError) -> String {
        switch error {
        case .syntax, .tooDeep, .tooLarge, .unencodable:
            return "The body is not valid JSON."
        case .mismatch(let path, let reason):
            let field = path.isEmpty ? "the document" : "'\(path)'"
            // WireJSONDecoder's reason for an absent key starts with "missing".
            return "The JSON body is invalid: \(field) " + (reason.hasPrefix("missing") ? "is missing." : "has the wrong type.")
        }
    }
}
