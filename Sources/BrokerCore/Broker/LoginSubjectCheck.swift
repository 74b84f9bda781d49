/// Whether a finished login may replace the account's tokens: it must sign in the user the
/// account already names, unless the login was started with `new_subject`.
///
/// Why: the loopback redirect reaches any local user's browser, so a user who learnt a pending
/// login's authorization URL can sign in at the provider as themselves and have the code delivered
/// to our listener (login injection). The daemon cannot see whose browser that was; it can see
/// that the provider named another user. The comparison is the refresh's same-user check's (the
/// ID token's `sub`, else the user id the answer or userinfo gave, compared exactly:
/// `IDTokenValidator`'s `.refresh`, `OIDCClient.checkRefreshAnswer`).
///
/// `previous` is the account's stored subject: set by each login and kept in the status row
/// while the account exists — with its tokens, after the provider rejected them, after
/// `authctl logout` and across restarts. Only a security-relevant change (another issuer or
/// client: another namespace of subjects) forgets it; then, as for an account that never signed
/// in, the next login is a first login, which any user may complete.
struct LoginSubjectCheck: Equatable {
    var previous: String?
    var signedIn: String?
    var accountName: String
    var allowsNewSubject: Bool

    /// Why the login must not commit its tokens (one line for the user), or nil when it may.
    var refusal: String? {
        guard let previous, !allowsNewSubject, signedIn != previous else { return nil }
        let retry = "the account keeps its tokens. If that is intended, run: authctl login \(accountName) --new-subject"
        guard let signedIn else {
            return "the provider did not say which user signed in, so it cannot be checked to be "
                + "\(Self.shown(previous)), the account's user; \(retry)"
        }
        return "the provider signed in a different user (\(Self.shown(signedIn))) than the account's "
            + "(\(Self.shown(previous))); \(retry)"
    }

    /// A subject as the message shows it: quoted when it is 1–255 printable ASCII bytes (subjects
    /// are often opaque ids; the owner may see them), else a placeholder so the message stays one line.
    static func shown(_ subject: String) -> String {
        let bytes = subject.utf8
        guard (1...255).contains(bytes.count), bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else {
            return "an id that cannot be shown"
        }
        return "'\(subject)'"
    }
}
