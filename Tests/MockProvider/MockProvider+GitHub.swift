import BrokerHTTP
import Foundation

// GitHub mode (`MockProviderConfiguration.github`): the standard grants, answered the way GitHub's
// documentation says its OAuth endpoints answer.
extension MockProvider {
    func github(_ endpoint: String, _ request: HTTPRequest) -> HTTPResponse {
        guard configuration.github else { return .plainText(status: 404, "no such endpoint") }
        switch endpoint {
        case "authorize":
            // GitHub's redirect carries `code` and `state`, never RFC 9207's `iss`.
            return authorize(request, sendsIss: false)
        case "device":
            return githubShaped(deviceAuthorization(request), grantType: nil, request)
        default:
            let fields = Self.form(request)
            let grantType = fields["grant_type"] ?? "authorization_code"
            let oldFamily = grantType == "refresh_token" ? refreshFamily(fields["refresh_token"]) : nil
            let answer = githubShaped(token(request), grantType: grantType, request)
            if let oldFamily, answer.status == 200, !answer.body.isEmpty { retireAccessTokens(of: oldFamily, except: answer) }
            return answer
        }
    }

    /// The family of a refresh token, before it is used.
    private func refreshFamily(_ token: String?) -> Int? {
        state.withLock { state in token.flatMap { state.refreshTokens[$0]?.family } }
    }

    /// "Once you use a refresh token, that refresh token and the old user access token will no
    /// longer work": every access token of the family but the one just issued is revoked.
    private func retireAccessTokens(of family: Int, except answer: HTTPResponse) {
        let body = String(decoding: answer.body, as: UTF8.self)
        state.withLock { state in
            for (token, record) in state.accessTokens where record.family == family && !body.contains(token) {
                state.accessTokens[token]?.revoked = true
            }
        }
    }

    /// The standard answer reshaped: HTTP 200 for errors with GitHub's codes, no ID token, GitHub's
    /// field spellings, form-encoded unless JSON was asked for.
    func githubShaped(_ standard: HTTPResponse, grantType: String?, _ request: HTTPRequest) -> HTTPResponse {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(standard.body))) as? [String: Any] else {
            return standard
        }
        if let error = object["error"] as? String {
            object["error"] = Self.githubErrorCode(error, grantType: grantType)
            object["error_uri"] = "https://docs.github.com/apps/troubleshooting-oauth-app-access-token-request-errors"
            if error == "slow_down" { object["interval"] = configuration.deviceInterval + 5 }
        } else if grantType != nil {
            object["id_token"] = nil
            object["token_type"] = "bearer"
            object["scope"] = (object["scope"] as? String)?.split(separator: " ").joined(separator: ",")
            if object["refresh_token"] != nil { object["refresh_token_expires_in"] = 15_897_600 }
        } else {
            object["verification_uri_complete"] = nil
        }
        let acceptsJSON = (request.headers["Accept"] ?? "").contains("application/json")
        if acceptsJSON { return MockResponse.json(object) }
        state.withLock { $0.stats.formEncodedAnswers += 1 }
        let fields = object.sorted { $0.key < $1.key }.map { FormField($0.key, "\($0.value)") }
        return HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")]),
            body: Array(FormURLEncoding.encode(fields).utf8))
    }

    /// GitHub's names for the standard refusals.
    static func githubErrorCode(_ error: String, grantType: String?) -> String {
        switch (error, grantType) {
        case ("invalid_client", _): "incorrect_client_credentials"
        case ("invalid_grant", "refresh_token"): "bad_refresh_token"
        case ("invalid_grant", "urn:ietf:params:oauth:grant-type:device_code"): "incorrect_device_code"
        case ("invalid_grant", _): "bad_verification_code"
        default: error
        }
    }
}
