import BrokerProtocol
import BrokerStore

// Vault key rotation (`authctl rekey`).
extension TokenBroker {
    /// Rotates the vault key when it lives in a key file; a clear refusal for a systemd credential or a
    /// passphrase (those are changed by the administrator, then the daemon restarted).
    public func rekey() async throws(WireError) -> RekeyResult {
        do {
            return try await worker.perform { vault throws(RekeyRefusal) in
                let path: String
                switch vault.keySource {
                case .keyFile(let file), .defaultKeyFile(let file): path = file
                case .systemdCredential(let file):
                    throw RekeyRefusal(
                        message:
                            "The key is the systemd credential '\(file)'. Rotate it with systemd-creds and restart authbrokerd.")
                case .passphraseFile(let file):
                    throw RekeyRefusal(
                        message: "The key comes from the passphrase file '\(file)'; rekey works only with a key file.")
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
