import BrokerProtocol
import Foundation
import Testing

@Test func errorCodesMapToDocumentedStatuses() {
    let expected: [WireErrorCode: Int] = [
        .invalidRequest: 400, .loginRequired: 401, .loginPending: 401, .forbidden: 403,
        .unknownAccount: 404, .conflict: 409, .internal: 500, .storageFailed: 500,
        .providerUnavailable: 503, .configurationUnreadable: 500, .tlsPinMismatch: 502,
        .notDPoP: 409,
        .callerNotAllowed: 403, .approvalRequired: 403,
        .scopeNotGranted: 403, .scopeNarrowingUnsafe: 403, .scopeLost: 401, .narrowingNotAllowed: 403,
        .narrowingRefused: 403, .rateLimited: 429,
        .confirmationRequired: 403, .confirmationFailed: 403,
    ]
    for code in WireErrorCode.allCases { #expect(code.httpStatus == expected[code]) }
    #expect(WireErrorCode.loginRequired.exitCode == 77)
    #expect(WireErrorCode.providerUnavailable.exitCode == 75)
    #expect(WireErrorCode.storageFailed.exitCode == 75)
    #expect(WireErrorCode.tlsPinMismatch.exitCode == 1)
    #expect(WireErrorCode.invalidRequest.exitCode == 64, "authctl(1): a request the daemon refused as invalid")
    #expect(WireErrorCode.callerNotAllowed.exitCode == 1)
    #expect(WireErrorCode.approvalRequired.exitCode == 77)
    #expect(WireErrorCode.scopeLost.exitCode == 77, "scope_lost needs a login")
    #expect(WireErrorCode.scopeNotGranted.exitCode == 1)
    #expect(WireErrorCode.confirmationRequired.exitCode == 77, "a code needs the user")
    #expect(WireErrorCode.confirmationFailed.exitCode == 1)
}

/// docs/api.md's error table names every code once, with the status and exit code the code has.
@Test func theDocumentedErrorTableMatchesTheCodes() throws {
    let api = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "docs/api.md")
    let text = try String(contentsOf: api, encoding: .utf8)
    var documented: [String: (status: Int, exit: Int)] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("| `") {
        let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        guard cells.count >= 4, let status = Int(cells[1]),
            let exit = Int(cells[cells.count - 1].prefix { $0.isNumber })
        else { continue }
        documented[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = (status, exit)
    }
    for code in WireErrorCode.allCases {
        let row = documented[code.rawValue]
        #expect(row?.status == code.httpStatus, "\(code.rawValue): status")
        #expect(row.map { Int32($0.exit) } == code.exitCode, "\(code.rawValue): exit")
    }
}

@Test func errorEnvelopeHasTheDocumentedShape() throws {
    let envelope = ErrorEnvelope(error: WireError(code: .unknownAccount, message: "No account named 'x'."))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(envelope), as: UTF8.self)
    #expect(json == #"{"error":{"code":"unknown_account","message":"No account named 'x'."}}"#)
    let decoded = try JSONDecoder().decode(ErrorEnvelope.self, from: Data(json.utf8))
    #expect(decoded == envelope)
}

@Test func accountStatusAlwaysCarriesEveryKey() throws {
    let status = AccountStatus(name: "work", state: .loggedOut)
    let object = try JSONSerializationFree.keys(of: JSONEncoder().encode(status))
    #expect(object == ["expires_at", "last_error", "last_refresh", "name", "scope", "state", "subject"])
}

@Test func tokenGrantUsesSnakeCase() throws {
    let grant = TokenGrant(accessToken: "t", tokenType: "Bearer", expiresAt: "2026-01-01T00:00:00Z", scope: "openid")
    let decoded = try JSONDecoder().decode(TokenGrant.self, from: JSONEncoder().encode(grant))
    #expect(decoded == grant)
    #expect(String(decoding: try JSONEncoder().encode(grant), as: UTF8.self).contains(#""access_token":"t""#))
}

/// Top-level keys of a JSON object, sorted (decoding through a dictionary of JSON values).
enum JSONSerializationFree {
    struct AnyValue: Decodable {}
    static func keys(of data: Data) throws -> [String] {
        struct Keys: Decodable {
            let names: [String]
            init(from decoder: any Decoder) throws {
                names = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue).sorted()
            }
        }
        return try JSONDecoder().decode(Keys.self, from: data).names
    }
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

@Test func pendingLoginErrorShowsTheURLOnATerminal() {
    let pending = WireError(
        code: .loginPending,
        message: "A login for 'w' is pending: finish it in the browser (authorization_url), or run: authctl login w",
        authorizationURL: "https://idp/authorize?x=1")
    #expect(
        BrokerClientError.api(pending).description
            == "A login for 'w' is pending: finish it in the browser at https://idp/authorize?x=1, or run: authctl login w")
    #expect(BrokerClientError.api(pending).exitCode == 77)
    let other = WireError(code: .loginPending, message: "Pending.", authorizationURL: "https://idp/a")
    #expect(BrokerClientError.api(other).description == "Pending. Finish it at: https://idp/a")
}
