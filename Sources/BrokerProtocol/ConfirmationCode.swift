/// The one-time code that approves a `--confirm` caller (`POST /v1/approvals`) or confirms a change
/// of an account's caller policy (`PUT /v1/accounts/{name}`, header `Authbroker-Confirmation`).
///
/// The daemon draws it from the CSPRNG and shows it only through the notify hook
/// (`AUTHBROKER_APPROVAL_CODE`) or the desktop notification — never in an answer on the socket or
/// in its log — so a program that can talk to the socket, such as the one waiting for approval,
/// cannot produce it. 8 characters of a 32-letter alphabet without look-alikes (40 bits), shown
/// as `ABCD-EFGH`; 5 wrong tries burn it (docs/security.md, "Caller policy").
public enum ConfirmationCode {
    /// 32 characters (5 bits each, no modulo bias) without the look-alikes `0`/`O` and `1`/`I`:
    /// read off a notification and typed by a person.
    public static let alphabet: [Character] = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
    /// Characters in a code, without the grouping dash.
    public static let length = 8
    /// Wrong tries before a code is burnt and a new one must be asked for.
    public static let maximumAttempts = 5
    /// The request header that carries the code of a caller-policy change (`PUT /v1/accounts/{name}`).
    public static let header = "Authbroker-Confirmation"

    /// `raw` (the code's `length` characters) grouped for people: `ABCD-EFGH`.
    public static func grouped(_ raw: String) -> String {
        let characters = Array(raw)
        guard characters.count == length else { return raw }
        return String(characters[0..<4]) + "-" + String(characters[4...])
    }

    /// What a person typed, as the code's raw characters: case, spaces and dashes ignored. nil when
    /// it cannot be a code (wrong length or a character outside the alphabet).
    public static func normalized(_ typed: String) -> String? {
        let kept = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard kept.count == length, kept.allSatisfy({ alphabet.contains($0) }) else { return nil }
        return kept
    }
}
