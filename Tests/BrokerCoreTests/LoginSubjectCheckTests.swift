import Testing

@testable import BrokerCore

/// A finished login may replace the account's tokens only when it signed in the account's user,
/// or when it was started with `new_subject` (login injection: docs/security.md, "Other local users").
@Suite struct LoginSubjectCheckTests {
    func refusal(_ previous: String?, _ signedIn: String?, allows: Bool = false) -> String? {
        LoginSubjectCheck(previous: previous, signedIn: signedIn, accountName: "work", allowsNewSubject: allows).refusal
    }

    @Test func aFirstLoginOrTheSameUserIsAccepted() {
        #expect(refusal(nil, "alice") == nil)
        #expect(refusal(nil, nil) == nil)
        #expect(refusal("alice", "alice") == nil)
    }

    @Test func anotherUserIsRefusedInOneLineNamingBothAndTheFlag() throws {
        let message = try #require(refusal("alice", "mallory"))
        #expect(
            message == "the provider signed in a different user ('mallory') than the account's ('alice'); "
                + "the account keeps its tokens. If that is intended, run: authctl login work --new-subject")
        // Exact, as the refresh's check: no case folding, no trimming.
        #expect(refusal("alice", "Alice") != nil)
        #expect(refusal("alice", "alice ") != nil)
    }

    @Test func aLoginThatNamesNoUserCannotReplaceOne() throws {
        let message = try #require(refusal("alice", nil))
        #expect(message.contains("did not say which user signed in") && message.contains("--new-subject"))
    }

    @Test func newSubjectAcceptsAnotherUser() {
        #expect(refusal("alice", "mallory", allows: true) == nil)
        #expect(refusal("alice", nil, allows: true) == nil)
    }

    @Test func subjectsThatCannotBeShownKeepTheMessageOneLine() throws {
        let message = try #require(refusal("alice", "evil\nsecond line\u{1B}[2J"))
        #expect(!message.contains("\n") && !message.contains("\u{1B}"))
        #expect(message.contains("an id that cannot be shown"))
        #expect(LoginSubjectCheck.shown(String(repeating: "x", count: 256)) == "an id that cannot be shown")
        #expect(LoginSubjectCheck.shown("248289761001") == "'248289761001'")
    }
}
