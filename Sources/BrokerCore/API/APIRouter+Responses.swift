import BrokerHTTP
import BrokerProtocol
import FoundationEssentials
import JSONLimits

extension APIRouter {
    /// A JSON answer with sorted keys (stable output for scripts and tests).
    static func json<T: Encodable>(_ value: T, status: Int = 200) throws(WireError) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body: Data
        do { body = try encoder.encode(value) } catch {
            throw WireError(code: .internal, message: "The daemon could not encode its answer (\(T.self)).")
        }
        return HTTPResponse(
            status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(body))
    }

    /// The error envelope with the status of the error's code.
    static func errorResponse(_ error: WireError) -> HTTPResponse {
        errorResponse(status: error.code.httpStatus, error)
    }

    /// The error envelope with an explicit status (404 for unknown paths, 405 for wrong methods).
    static func errorResponse(status: Int, _ error: WireError) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding two strings cannot fail; the fallback keeps the envelope shape anyway.
        let body = (try? encoder.encode(ErrorEnvelope(error: error))).map { Array($0) }
            ?? Array(#"{"error":{"code":"internal","message":"error"}}"#.utf8)
        return HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    }
}

/// The query parameters of one request, checked against what the route accepts: unknown,
/// repeated or undecodable parameters are a 400, not silently ignored.
struct RouterQuery {
    private let fields: [String: String]

    init(_ request: HTTPRequest, allowed: Set<String>) throws(WireError) {
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

    /// Refuses any query string on routes that take none.
    static func expectNone(_ request: HTTPRequest) throws(WireError) {
        _ = try RouterQuery(request, allowed: [])
    }

    /// A whole number of seconds within `range`, nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(WireError) -> Int? {
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
}

/// JSON request bodies.
enum RouterBody {
    /// Decodes the body as `T`; an empty body gives nil when `emptyAllowed`, else a 400.
    static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest, emptyAllowed: Bool) throws(WireError)
        -> T?
    {
        if request.body.isEmpty {
            guard emptyAllowed else { throw WireError(code: .invalidRequest, message: "This request needs a JSON body.") }
            return nil
        }
        if let contentType = request.headers["Content-Type"],
            contentType.split(separator: ";").first?.trimmingSpaces().lowercased() != "application/json"
        {
            throw WireError(code: .invalidRequest, message: "The body must be application/json, not \(contentType).")
        }
        do throws(JSONTooDeep) {
            try JSONNesting.check(request.body)
        } catch {
            throw WireError(code: .invalidRequest, message: "The JSON body nests deeper than \(error.limit) levels; send the flat object the API documents.")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(request.body))
        } catch let error as DecodingError {
            throw WireError(code: .invalidRequest, message: "The JSON body is invalid: \(Self.describe(error)).")
        } catch {
            throw WireError(code: .invalidRequest, message: "The body is not valid JSON.")
        }
    }

    /// A short reason naming the field, without echoing the body (it may hold a client secret).
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "the document" : "'" + keys.joined(separator: ".") + "'"
        }
        switch error {
        case .keyNotFound(let key, _): return "'\(key.stringValue)' is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context)) has the wrong type"
        case .dataCorrupted(let context): return "\(path(context)) is not valid JSON"
        @unknown default: return "not the expected shape"
        }
    }
}
