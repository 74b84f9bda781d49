import BrokerHTTP
import Foundation
import Testing
import WireFormats

@testable import BrokerCore

/// Issue 12, defects 4 and 7: token-endpoint answers as providers, proxies and captive portals
/// really send them, read by `TokenResponse.parse` and classified. Only a real §5.2 grant
/// rejection may delete a refresh token (`refreshDisposition == .terminal`); nothing crashes, and no
/// provider text reaches a message unbounded or with control characters.
@Suite struct ErrorBodyClassificationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// What an answer must become.
    enum Reading: Equatable {
        case oauth(String, status: Int)
        case status(Int)
        case malformed(mentioning: String)
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var status: Int
        var contentType: String
        var body: String
        var reading: Reading
        /// True only when the refresh token must be deleted.
        var dropsGrant: Bool
        var description: String { name }
    }

    static let json = "application/json"
    static let html = "text/html; charset=utf-8"
    static let page = "<!DOCTYPE html><html><head><title>Bad Gateway</title></head><body>nginx</body></html>"

    static let rows: [Row] = [
        Row(
            name: "invalid_grant 400", status: 400, contentType: json, body: #"{"error":"invalid_grant"}"#,
            reading: .oauth("invalid_grant", status: 400), dropsGrant: true),
        Row(
            name: "invalid_client 401", status: 401, contentType: json, body: #"{"error":"invalid_client"}"#,
            reading: .oauth("invalid_client", status: 401), dropsGrant: true),
        // Entra answers MFA and Conditional Access at refresh this way (AADSTS50076/50079/53003):
        // only a new login (with the user present) can satisfy it; retrying never will.
        Row(
            name: "interaction_required 400", status: 400, contentType: json,
            body:
                #"{"error":"interaction_required","error_description":"AADSTS50076: Due to a configuration change made by your administrator, you must use multi-factor authentication."}"#,
            reading: .oauth("interaction_required", status: 400), dropsGrant: true),
        Row(
            name: "GitHub bad_refresh_token 200", status: 200, contentType: json,
            body:
                #"{"error":"bad_refresh_token","error_description":"The refresh token passed is incorrect or expired.","error_uri":"https://docs.github.com"}"#,
            reading: .oauth("bad_refresh_token", status: 200), dropsGrant: true),
        Row(
            name: "GitHub incorrect_client_credentials 200", status: 200, contentType: json,
            body: #"{"error":"incorrect_client_credentials"}"#, reading: .oauth("incorrect_client_credentials", status: 200),
            dropsGrant: true),
        Row(
            name: "GitHub authorization_pending 200", status: 200, contentType: json, body: #"{"error":"authorization_pending"}"#,
            reading: .oauth("authorization_pending", status: 200), dropsGrant: false),
        Row(
            name: "invalid_grant with a wrong content type", status: 400, contentType: "text/plain",
            body: #"{"error":"invalid_grant"}"#, reading: .oauth("invalid_grant", status: 400), dropsGrant: true),
        Row(
            name: "502 HTML from a load balancer", status: 502, contentType: html, body: page,
            reading: .status(502), dropsGrant: false),
        Row(
            name: "200 HTML from a captive portal", status: 200, contentType: html, body: page,
            reading: .malformed(mentioning: "HTML page"), dropsGrant: false),
        Row(
            name: "200 HTML without a content type", status: 200, contentType: "", body: "  \n<html>login</html>",
            reading: .malformed(mentioning: "HTML page"), dropsGrant: false),
        Row(
            name: "403 HTML from a firewall", status: 403, contentType: html, body: page, reading: .status(403), dropsGrant: false
        ),
        Row(name: "404 empty", status: 404, contentType: "", body: "", reading: .status(404), dropsGrant: false),
        Row(
            name: "error missing", status: 400, contentType: json, body: #"{"error_description":"no"}"#,
            reading: .status(400), dropsGrant: false),
        Row(
            name: "error a number", status: 400, contentType: json, body: #"{"error":42}"#, reading: .status(400),
            dropsGrant: false),
        Row(
            name: "error an object (Google API style)", status: 400, contentType: json,
            body: #"{"error":{"code":400,"message":"invalid_grant","status":"INVALID_ARGUMENT"}}"#,
            reading: .status(400), dropsGrant: false),
        Row(
            name: "error empty", status: 400, contentType: json, body: #"{"error":""}"#, reading: .status(400), dropsGrant: false),
        Row(
            name: "a JSON array", status: 400, contentType: json, body: #"["invalid_grant"]"#, reading: .status(400),
            dropsGrant: false),
        Row(
            name: "truncated JSON", status: 400, contentType: json, body: #"{"error":"invalid_gr"#, reading: .status(400),
            dropsGrant: false),
        Row(
            name: "invalid_grant behind a 503", status: 503, contentType: json, body: #"{"error":"invalid_grant"}"#,
            reading: .oauth("invalid_grant", status: 503), dropsGrant: false),
        Row(
            name: "invalid_grant with a status §5.2 never gives", status: 403, contentType: json,
            body: #"{"error":"invalid_grant"}"#,
            reading: .oauth("invalid_grant", status: 403), dropsGrant: false),
        Row(
            name: "another OAuth error", status: 400, contentType: json, body: #"{"error":"invalid_scope"}"#,
            reading: .oauth("invalid_scope", status: 400), dropsGrant: false),
        Row(
            name: "a code that is not ASCII", status: 400, contentType: json, body: #"{"error":"invalid_grånt"}"#,
            reading: .oauth("invalid_gr?nt", status: 400), dropsGrant: false),
        Row(
            name: "200 error empty, no token", status: 200, contentType: json, body: #"{"error":""}"#,
            reading: .malformed(mentioning: "no access_token"), dropsGrant: false),
        Row(
            name: "200 form-encoded", status: 200, contentType: "application/x-www-form-urlencoded",
            body: "error=bad_refresh_token", reading: .malformed(mentioning: "form-encoded"), dropsGrant: false),
        Row(
            name: "200 JSON array", status: 200, contentType: json, body: "[]",
            reading: .malformed(mentioning: "not a JSON object"), dropsGrant: false),
        Row(
            name: "200 empty", status: 200, contentType: json, body: "", reading: .malformed(mentioning: "empty"),
            dropsGrant: false),
    ]

    static func parse(_ row: Row) -> OIDCError? {
        let headers = row.contentType.isEmpty ? HTTPHeaders() : HTTPHeaders([("Content-Type", row.contentType)])
        do {
            _ = try TokenResponse.parse(HTTPResponse(status: row.status, headers: headers, body: Array(row.body.utf8)), now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: rows)
    func answersAreReadAndClassified(row: Row) throws {
        let error = try #require(Self.parse(row), "\(row) parsed as a success")
        switch (row.reading, error) {
        case (.oauth(let code, let status), .oauthError(let response, let found, _)):
            #expect(response.error == code && found == status)
        case (.status(let status), .httpStatus(let found, _, _)):
            #expect(found == status)
        case (.malformed(let text), .malformedResponse(_, let reason)):
            #expect(reason.contains(text), "\(reason)")
        default:
            Issue.record("\(row): read as \(error)")
        }
        #expect(error.rejectsGrant == row.dropsGrant)
        #expect((error.refreshDisposition == .terminal) == row.dropsGrant, "\(error)")
        #expect(error.description.count < 1_000)
        // A proxy's page is described, never echoed.
        #expect(!error.description.contains("<html") && !error.description.contains("DOCTYPE"))
    }

    @Test func descriptionsInOtherLanguagesStayReadableAndBounded() throws {
        let french = "Le jeton d’actualisation a expiré. Veuillez vous reconnecter."
        let japanese = "リフレッシュトークンの有効期限が切れています"
        for text in [french, japanese] {
            let row = Row(
                name: text, status: 400, contentType: Self.json,
                body: #"{"error":"invalid_grant","error_description":"\#(text)"}"#,
                reading: .oauth("invalid_grant", status: 400), dropsGrant: true)
            #expect(Self.parse(row)?.description.contains(text) == true)
        }
        let huge = String(repeating: "é", count: 200_000)
        let hugeRow = Row(
            name: "huge", status: 400, contentType: Self.json,
            body: #"{"error":"invalid_request","error_description":"\#(huge)"}"#, reading: .status(0), dropsGrant: false)
        let description = try #require(Self.parse(hugeRow)).description
        #expect(description.count < ProviderText.maximumLength + 100 && description.hasSuffix("…"))
    }

    @Test func controlAndFormatCharactersNeverReachAMessage() {
        let hostile = "a\u{1B}[2J\u{7}b\r\nc\u{202E}d\u{200B}e\u{2028}f\u{E000}g\u{85}h"
        #expect(ProviderText.sanitizeProse(hostile) == "a?[2J?b??c?d?e?f?g?h")
        #expect(ProviderText.sanitize("code\u{1B}é") == "code??")
        #expect(ProviderText.sanitizeProse(String(repeating: "x", count: 300)) == String(repeating: "x", count: 300))
        #expect(ProviderText.sanitizeProse(String(repeating: "x", count: 301)) == String(repeating: "x", count: 300) + "…")
    }
}
