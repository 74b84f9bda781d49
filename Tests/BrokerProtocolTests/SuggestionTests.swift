import BrokerProtocol
import Testing

/// "Did you mean": one close word or none.
@Suite struct SuggestionTests {
    let commands = ["login", "logout", "token", "refresh", "status", "account", "socket", "approve", "approvals", "exec", "curl"]

    @Test func typosFindTheirWord() {
        #expect(Suggestion.closest(to: "stauts", among: commands) == "status")  // a swap costs one
        #expect(Suggestion.closest(to: "tokn", among: commands) == "token")
        #expect(Suggestion.closest(to: "refesh", among: commands) == "refresh")
        #expect(Suggestion.closest(to: "STATUS", among: commands) == "status")
        #expect(Suggestion.closest(to: "--min-tt", among: ["--min-ttl", "--json"]) == "--min-ttl")
    }

    @Test func otherWordsGetNoGuess() {
        #expect(Suggestion.closest(to: "deploy", among: commands) == nil)
        #expect(Suggestion.closest(to: "--nope", among: ["--scope", "--min-ttl"]) == nil)
        #expect(Suggestion.closest(to: "x", among: commands) == nil)
        #expect(Suggestion.closest(to: "", among: commands) == nil)
        #expect(Suggestion.closest(to: String(repeating: "status", count: 100), among: commands) == nil)
        // Equally close to two words: no guess rather than a coin toss.
        #expect(Suggestion.closest(to: "logn", among: ["login", "logan"]) == nil)
        #expect(Suggestion.phrase(for: "deploy", among: commands) == "")
        #expect(Suggestion.phrase(for: "statu", among: commands) == " (did you mean 'status'?)")
    }
}
