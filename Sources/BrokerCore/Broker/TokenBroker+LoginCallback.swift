import BrokerProtocol

// Redirects handed over by `authctl callback URL` or pasted into `authctl login`: private-use scheme
// ones (RFC 8252 §7.1), and loopback ones copied from a browser on another machine.
extension TokenBroker {
    /// `POST /v1/logins/callback`: completes the caller's pending login whose redirect URI and
    /// `state` the URL carries, with the same checks and PKCE exchange as a loopback redirect, and
    /// answers its outcome once the tokens are committed. A URL no pending login claims — another
    /// login's state, another user's, a replay after the login ended — changes nothing. The URL
    /// holds the code: it is never logged or put in an error.
    public func loginCallback(url: String, owner: UInt32) async throws(WireError) -> LoginStatus {
        guard let id = logins.claiming(url, owner: owner), let flow = logins.pending(id)?.login?.flow else {
            throw fail(
                WireError(
                    code: .invalidRequest,
                    message: "No pending login matches this redirect (it was used already, the login ended, or it is "
                        + "another login's). Start a new one with: authctl login NAME"))
        }
        // Two uses racing past the lookup: the login takes the first; the second is a replay.
        if case .failure(.loginAlreadyFinished) = await flow.completeWithRedirect(url) {
            throw fail(
                WireError(
                    code: .invalidRequest, message: "This redirect was used already; its login is finishing or has ended."))
        }
        // The flow has ended; `awaitLogin` commits its tokens and ends the login, which this waits for.
        return try await loginStatus(id: id, owner: owner, wait: options.maximumLoginWait)
    }
}
