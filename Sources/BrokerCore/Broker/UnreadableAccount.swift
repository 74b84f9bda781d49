import BrokerProtocol
import BrokerStore

/// An account whose stored configuration document cannot be read (`AccountDocumentError`: a newer
/// authbroker's version, a missing key, a wrong type). It is listed, in `error` with
/// `configuration_unreadable`, and every other request for it is refused with that error: serving
/// it with a partial configuration could send its refresh token to the wrong endpoint or client.
/// Its tokens stay in the vault, unread, until the account is removed.
struct UnreadableAccount: Sendable {
    let id: Int64
    let key: AccountKey
    let error: WireError

    init(_ account: Account, problem: AccountDocumentError) {
        id = account.id
        key = AccountKey(owner: account.ownerUID, name: account.name)
        let name = key.name
        error = WireError(
            code: .configurationUnreadable,
            message: "The stored configuration of '\(name)' cannot be read: \(problem). Its tokens are kept, unused. "
                + "If a newer authbroker wrote it, run that version again; otherwise set the account up again: "
                + "authctl account remove \(name), then add it and log in")
    }

    var status: AccountStatus { AccountStatus(name: key.name, state: .error, lastError: error) }
}
