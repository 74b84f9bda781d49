import BrokerProtocol
import Testing

@testable import AuthctlCommands

/// `authctl account apply`'s file checks (`AccountsFile`), before anything is sent: every problem
/// as FILE:LINE:COLUMN, unknown keys with the nearest known one.
@Suite struct AccountsFileTests {
    func problem(_ text: String) -> String? {
        do {
            _ = try AccountsFile.entries(Array(text.utf8), source: "a.json")
            return nil
        } catch {
            return error.message
        }
    }

    @Test func aMisspelledKeyIsRefusedWhereItIsWithTheKnownOne() {
        let text = """
            {"accounts": [
              {"name": "work", "issuer": "https://idp.example", "client_id": "c",
               "scope": ["openid", "email"]}
            ]}
            """
        #expect(problem(text) == #"a.json:3:4: unknown key "scope"; did you mean "scopes"?"#)
    }

    @Test func unknownKeysAreRefusedAtEveryLevel() {
        #expect(problem(#"{"acounts": []}"#) == #"a.json:1:2: unknown key "acounts"; did you mean "accounts"?"#)
        #expect(problem(#"{"accounts": [], "x": 1}"#) == #"a.json:1:18: unknown key "x" (known: accounts)"#)
        let endpoint = #"{"accounts": [{"name": "w", "issuer": "i", "client_id": "c", "endpoints": {"token": "https://t"}}]}"#
        #expect(problem(endpoint)?.hasPrefix(#"a.json:1:76: unknown key "token""#) == true, "\(problem(endpoint) ?? "")")
        let far = #"{"accounts": [{"name": "w", "issuer": "i", "client_id": "c", "qqqqqqqq": 1}]}"#
        #expect(problem(far)?.hasPrefix(#"a.json:1:62: unknown key "qqqqqqqq" (known: "#) == true, "\(problem(far) ?? "")")
        #expect(problem(far)?.contains("did you mean") == false, "\(problem(far) ?? "")")
        let parameters = #"{"accounts": [{"name": "w", "issuer": "i", "client_id": "c", "extra_parameters": {"anything": "v"}}]}"#
        #expect(problem(parameters) == nil, "extra_parameters takes any name")
    }

    @Test func typeAndSyntaxErrorsNameLineAndColumn() {
        let wrongType = """
            {"accounts": [
              {"name": "work", "issuer": "https://idp.example", "client_id": "c",
               "redirect_port": "8080"}
            ]}
            """
        #expect(problem(wrongType)?.hasPrefix("a.json:3:4: accounts[0].redirect_port: ") == true, "\(problem(wrongType) ?? "")")
        #expect(problem("{\"accounts\": [\n  {\"name\": \"w\",}\n]}") == "a.json:2:16: invalid JSON: expected a quoted name")
        let missing = "{\"accounts\": [\n  {\"name\": \"w\", \"issuer\": \"i\"}\n]}"
        #expect(problem(missing)?.hasPrefix("a.json:2:3: accounts[0].client_id") == true, "\(problem(missing) ?? "")")
        #expect(
            problem("[]") == #"a.json:1:1: not an accounts file: {"accounts": [{"name": …, "issuer": …, "client_id": …}, …]}"#)
    }

    @Test func namesAreCheckedAndListedOnce() {
        let twice = """
            {"accounts": [
              {"name": "w", "issuer": "i", "client_id": "c"},
              {"name": "w", "issuer": "i", "client_id": "d"}
            ]}
            """
        #expect(problem(twice) == "a.json:3:4: 'w' is listed twice (first at 2:3)")
        #expect(
            problem(#"{"accounts": [{"name": "a b", "issuer": "i", "client_id": "c"}]}"#)?.hasPrefix(
                "a.json:1:16: invalid account name 'a b'") == true)
        let inline = #"{"accounts": [{"name": "w", "issuer": "i", "client_id": "c", "client_secret": "s3cret"}]}"#
        #expect(
            problem(inline)?.hasPrefix("a.json:1:62: account 'w' has an inline client_secret") == true, "\(problem(inline) ?? "")"
        )
        #expect(problem(inline)?.contains("s3cret") == false)
    }

    @Test func aGoodFileGivesEachEntryWithDefaultScopesAndPosition() throws {
        let text = "{\"accounts\": [\n  {\"name\": \"w\", \"issuer\": \"i\", \"client_id\": \"c\"}\n]}"
        let entries = try AccountsFile.entries(Array(text.utf8), source: "a.json")
        #expect(entries.map(\.name) == ["w"])
        #expect(entries.first?.configuration.scopes == ["openid"])
        #expect(entries.first?.position.description == "2:3")
    }

    @Test func theNearestNameIsATypoNotAnotherWord() {
        let keys = AccountConfiguration.jsonKeys
        #expect(Suggestion.closest(to: "scope", among: Array(keys)) == "scopes")
        #expect(Suggestion.closest(to: "redirect-port", among: Array(keys)) == "redirect_port")
        #expect(Suggestion.closest(to: "clientid", among: Array(keys)) == "client_id")
        #expect(Suggestion.closest(to: "Issuer", among: Array(keys)) == "issuer")
        #expect(Suggestion.closest(to: "x", among: Array(keys)) == nil)
        #expect(Suggestion.closest(to: "completely_different", among: Array(keys)) == nil)
        #expect(Suggestion.closest(to: String(repeating: "s", count: 100), among: Array(keys)) == nil)
    }
}
