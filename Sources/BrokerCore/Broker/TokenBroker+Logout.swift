import BrokerProtocol
import BrokerStore

// Logout and key rotation.
extension TokenBroker {
    /// Revokes at the provider (refresh token, then access token; best effort, reported), deletes the
    /// local tokens, and returns the provider's end-session URL when it has one.
    public func logout(account key: AccountKey) async throws(WireError) -> LogoutResult {
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        let tokens = runtime.machine.currentTokens
        var endSessionURL: String?
        if let metadata = runtime.metadata?.metadata, metadata.endSessionEndpoint != nil {
            endSessionURL = try? oidc.logoutURL(metadata: metadata, client: runtime.client, tokens: tokens)
        }
        var revokeNow: [TokenSet] = []
        accounts[key]?.subject = nil
        event(key) { machine, now in
            // The revocation is done here, awaited, so its outcome can be reported.
            machine.logout(now: now).filter { action in
                guard case .revoke(let held) = action else { return true }
                revokeNow.append(held)
                return false
            }
        }
        logger.with(key).info("logged out")
        guard let held = revokeNow.first ?? tokens else {
            return LogoutResult(revoked: false, revocationNote: "no tokens were held", endSessionURL: endSessionURL)
        }
        // A task of its own: this runs for a socket request, whose connection thread must not
        // carry the provider exchange (ProviderTask).
        let outcome = await Task { await self.revoke(held, account: key) }.value
        return LogoutResult(revoked: outcome.revoked, revocationNote: outcome.note, endSessionURL: endSessionURL)
    }

    /// Rotates the vault key when it lives in a key file; a clear refusal for a systemd credential or a
    /// passphrase (those are changed by the administrator, then the daemon restarted).
    public func rekey() async throws(WireError) -> RekeyResult {
        do {
            return try await worker.perform { vault throws(RekeyRefusal) in
                let path: String
                switch vault.keySource {
                case .keyFile(let file), .defaultKeyFile(let file): path = file
                case .systemdCredential(let file):
                    throw RekeyRefusal(message: "The key is the systemd credential '\(file)'. Rotate it with systemd-creds and restart authbrokerd.")
                case .passphraseFile(let file):
                    throw RekeyRefusal(message: "The key comes from the passphrase file '\(file)'; rekey works only with a key file.")
                }
                var sealed = 0
                do {
                    for account in try vault.accounts() {
                        if account.hasClientSecret { sealed += 1 }
                        if let tokens = try vault.loadTokens(accountID: account.id) {
                            sealed += 1 + (tokens.refreshToken == nil ? 0 : 1) + (tokens.idToken == nil ? 0 : 1)
                        }
                    }
                    try vault.rotateKeyFile(at: path)
                } catch {
                    throw RekeyRefusal(message: "The key could not be rotated: \(error)", internal: true)
                }
                return RekeyResult(resealed: sealed, keyLocation: path)
            }
        } catch let refusal as RekeyRefusal {
            throw fail(WireError(code: refusal.internal ? .internal : .invalidRequest, message: refusal.message))
        } catch {
            throw fail(WireError(code: .internal, message: "The key could not be rotated: \(error)"))
        }
    }
}

struct RekeyRefusal: Error {
    var message: String
    var `internal` = false
}
