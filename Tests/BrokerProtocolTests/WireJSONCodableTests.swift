import FoundationEssentials
import Testing
import WireFormats

@testable import BrokerProtocol

/// WireJSON against FoundationEssentials' JSONEncoder/JSONDecoder on every wire type: the same bytes
/// out (compact and pretty), and each side reads what the other wrote.
@Suite struct WireJSONCodableTests {
    static let error = WireError(
        code: .loginPending, message: "Finish the login: \"work\" \u{1}/é", authorizationURL: "https://id.example/a?b=c&d=/e")
    static let configuration = AccountConfiguration(
        name: "work", issuer: "https://id.example.com/realms/x", clientID: "cli", clientSecret: "s3cr3t",
        scopes: ["openid", "offline_access"], audience: "api", redirectHost: "127.0.0.1", redirectPort: 8765,
        redirectPath: "/cb", extraParameters: ["prompt": "consent", "B": "1", "a10": "x", "a9": "y"],
        endpoints: ManualEndpoints(authorization: "https://a/auth", token: "https://a/token", jwksURI: "https://a/jwks"))

    static func foundation<Value: Encodable>(_ value: Value, pretty: Bool) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// Encodes with both, compares bytes, and decodes each output with the other decoder.
    static func check<Value: Codable & Equatable>(_ value: Value) throws {
        for pretty in [false, true] {
            let ours = try WireJSON.encode(value, pretty: pretty)
            let theirs = try foundation(value, pretty: pretty)
            #expect(String(decoding: ours, as: UTF8.self) == String(decoding: theirs, as: UTF8.self))
            #expect(try WireJSON.decode(Value.self, from: theirs) == value)
            #expect(try JSONDecoder().decode(Value.self, from: Data(ours)) == value)
        }
    }

    @Test func tokenGrant() throws {
        try Self.check(
            TokenGrant(accessToken: "eyJ.a.b", tokenType: "Bearer", expiresAt: "2026-01-01T00:00:00Z", scope: "openid email"))
        try Self.check(TokenGrant(accessToken: "t", tokenType: "Bearer", expiresAt: nil, scope: nil))
    }

    @Test func accountStatusAndLists() throws {
        let full = AccountStatus(
            name: "work", state: .active, expiresAt: "2026-01-01T00:00:00Z", lastRefresh: "2025-12-31T23:00:00Z",
            lastError: Self.error, subject: "alice", configuration: Self.configuration)
        let bare = AccountStatus(name: "home", state: .loggedOut)
        try Self.check(full)
        try Self.check(bare)
        try Self.check(AccountList(accounts: [full, bare]))
        try Self.check(AccountList(accounts: []))
        // Explicit nulls: every documented key is present.
        let text = String(decoding: try WireJSON.encode(bare), as: UTF8.self)
        #expect(
            text
                == #"{"expires_at":null,"last_error":null,"last_refresh":null,"name":"home","scope":null,"state":"logged_out","subject":null}"#
        )
    }

    @Test func configurationAndEndpoints() throws {
        try Self.check(Self.configuration)
        try Self.check(AccountConfiguration(name: "n", issuer: "https://i", clientID: "c"))
        try Self.check(ManualEndpoints())
    }

    /// docs/api.md requires only name, issuer and client_id (APIRouterAccountUpdateTests checks the
    /// route); here both decoders, WireJSON and Foundation's, agree on the defaults.
    @Test func configurationNeedsOnlyNameIssuerAndClientID() throws {
        let minimal = Array(#"{"name":"n","issuer":"https://i","client_id":"c"}"#.utf8)
        let expected = AccountConfiguration(name: "n", issuer: "https://i", clientID: "c")
        #expect(try WireJSON.decode(AccountConfiguration.self, from: minimal) == expected)
        #expect(try JSONDecoder().decode(AccountConfiguration.self, from: Data(minimal)) == expected)
        #expect(throws: (any Error).self) {
            try WireJSON.decode(AccountConfiguration.self, from: Array(#"{"name":"n","issuer":"https://i"}"#.utf8))
        }
    }

    @Test func loginAndCommandTypes() throws {
        try Self.check(LoginStarted(loginID: "l1", authorizationURL: "https://id/auth?x=1", expiresAt: "2026-01-01T00:00:00Z"))
        try Self.check(
            LoginStarted(
                loginID: "l2", authorizationURL: "u", expiresAt: "e", userCode: "ABCD-EFGH", verificationURI: "https://id/device")
        )
        for outcome in [LoginStatus.Outcome.pending, .succeeded, .failed, .timedOut] {
            try Self.check(LoginStatus(loginID: "l", account: "work", outcome: outcome, error: Self.error, subject: "bob"))
        }
        try Self.check(LoginRequest(timeoutSeconds: 300, device: true))
        try Self.check(LoginRequest(newSubject: true))
        try Self.check(LoginRequest())
        try Self.check(LogoutResult(revoked: false, revocationNote: "no revocation endpoint", endSessionURL: "https://id/logout"))
        try Self.check(PingResult(version: "1.0.0", pid: 4242, uptimeSeconds: 12.5))
        try Self.check(PingResult(version: "1.0.0", pid: -1, uptimeSeconds: 3))
        try Self.check(PingResult(version: "1.0.0", pid: 1, uptimeSeconds: 1e-7))
        try Self.check(RekeyResult(resealed: 12, keyLocation: "/home/u/.local/state/authbroker/key"))
        for code in WireErrorCode.allCases { try Self.check(ErrorEnvelope(error: WireError(code: code, message: "m"))) }
    }

    @Test func scalarsAndContainersMatchFoundation() throws {
        struct Scalars: Codable, Equatable {
            var int = Int.min, int8 = Int8.max, int16 = Int16.min, int32 = Int32.max, int64 = Int64.max
            var uint = UInt.max, uint8 = UInt8.max, uint16 = UInt16.max, uint32 = UInt32.max, uint64 = UInt64.max
            var double = -0.1, float: Float = 3.25, whole = 3.0, big = 1e300, tiny = 5e-324, negativeZero = -0.0
            var flag = true, text = "ctl \u{0}\u{1F}\u{7F} \u{2028} 😀 \\ \" /", none: String? = nil
            var nested: [[Int]] = [[], [1], [2, 3]], map: [String: [Bool]] = ["é": [true], "_": [], "Z": [false]]
            var empty: [String: Int] = [:]
        }
        try Self.check(Scalars())
        try Self.check([Scalars(), Scalars()])
        try Self.check(["x": 1])
        try Self.check([Int]())
    }

    /// The writer copies runs without escapes whole: escapes first, last, back to back, alone.
    @Test func stringsWithEscapesAnywhereMatchFoundation() throws {
        try Self.check([
            "", "\"", "\"abc", "abc\\", "\"\"\\\\", "a\nb\tc", "\u{1}x\u{1F}", "é\"é", String(repeating: "q", count: 5000) + "\n",
        ])
    }

    @Test func integersMustBeExact() throws {
        #expect(try WireJSON.decode(Int.self, from: Array("1.0".utf8)) == 1)
        #expect(try WireJSON.decode(Int.self, from: Array("1e2".utf8)) == 100)
        #expect(try WireJSON.decode(UInt64.self, from: Array("18446744073709551615".utf8)) == .max)
        #expect(try WireJSON.decode(Int32.self, from: Array("-2147483648".utf8)) == .min)
        for bad in ["1.5", "2147483648", "\"1\"", "true", "null", "1e400"] {
            #expect(throws: WireJSONError.self) { try WireJSON.decode(Int32.self, from: Array(bad.utf8)) }
        }
        #expect(throws: WireJSONError.self) { try WireJSON.decode(UInt8.self, from: Array("-1".utf8)) }
        #expect(throws: WireJSONError.self) { try WireJSON.decode(Double.self, from: Array("1e400".utf8)) }
        #expect(throws: WireJSONError.self) { try WireJSON.decode(Bool.self, from: Array("1".utf8)) }
    }

    @Test func nonFiniteNumbersAreNotEncoded() {
        #expect(throws: WireJSONError.self) { try WireJSON.encode([Double.nan]) }
        #expect(throws: WireJSONError.self) { try WireJSON.encode(["x": Float.infinity]) }
    }

    @Test func decodingErrorsNameThePathNotTheValue() throws {
        let secret = "sk-very-secret"
        let cases: [(String, WireJSONError)] = [
            (#"{"accounts":[{"name":"a","state":"\#(secret)"}]}"#, .mismatch(path: "accounts[0].state", reason: "invalid value")),
            (#"{"accounts":[{"state":"active"}]}"#, .mismatch(path: "accounts[0].name", reason: "missing")),
            (#"{"accounts":{}}"#, .mismatch(path: "accounts", reason: "expected an array, found an object")),
            (
                #"{"accounts":[{"name":7,"state":"active"}]}"#,
                .mismatch(path: "accounts[0].name", reason: "expected a string, found a number")
            ),
        ]
        for (text, expected) in cases {
            do {
                _ = try WireJSON.decode(AccountList.self, from: Array(text.utf8))
                Issue.record("decoded \(text)")
            } catch {
                #expect(error == expected)
                #expect(!error.description.contains(secret))
            }
        }
        #expect(throws: WireJSONError.mismatch(path: "", reason: "expected an object, found null")) {
            try WireJSON.decode(TokenGrant.self, from: Array("null".utf8))
        }
    }

    @Test func unknownKeysAreIgnoredAndNullMeansAbsent() throws {
        let text = #"{"access_token":"t","token_type":"Bearer","expires_at":null,"extra":[1,{"x":null}]}"#
        let grant = try WireJSON.decode(TokenGrant.self, from: Array(text.utf8))
        #expect(grant == TokenGrant(accessToken: "t", tokenType: "Bearer", expiresAt: nil, scope: nil))
    }

    @Test func serializedValuesParseBack() throws {
        let value = JSONValue.object([
            "a": .array([.null, .bool(true), .number("-1.5e3"), .string("\u{0}\u{1F}\"\\/é")]), "": .object([:]),
        ])
        for pretty in [false, true] {
            #expect(try WireJSON.parse(WireJSON.serialize(value, pretty: pretty)) == value)
        }
    }
}
