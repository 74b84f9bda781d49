import BrokerCrypto
import BrokerProtocol

/// A `ConfirmationCode` the daemon issued: the only proof that a decision comes from someone who
/// saw the notification, since any program of the owner can call the socket. Compared in constant
/// time; `ConfirmationCode.maximumAttempts` wrong tries burn it, so with 40 bits it cannot be
/// guessed before a new wait (and a new notification) is needed.
struct OneTimeCode: Sendable {
    /// What a check of a candidate found.
    enum Check: Equatable {
        case accepted
        /// Wrong; `remaining` tries are left.
        case wrong(remaining: Int)
        /// Wrong, and that was the last try (or it was burnt already): the code is gone.
        case burnt
    }

    /// The raw characters (no dash). Never logged, never put in an answer on the socket.
    private let value: String
    private(set) var attemptsLeft = ConfirmationCode.maximumAttempts

    /// A fresh code from the CSPRNG (`Random`): 5 bits of each byte pick one of 32 characters.
    init() {
        // getrandom fails only before the kernel's pool is initialised or on a broken kernel; a
        // code nobody can know (and no attempts) then fails closed rather than trapping.
        guard let bytes = try? Random.bytes(ConfirmationCode.length) else {
            self.init(value: "", attempts: 0)
            return
        }
        self.init(value: String(bytes.map { ConfirmationCode.alphabet[Int($0 & 31)] }))
    }

    init(value: String, attempts: Int = ConfirmationCode.maximumAttempts) {
        self.value = value
        self.attemptsLeft = attempts
    }

    /// The code as people read it (`ABCD-EFGH`), for the notification only.
    var shown: String { ConfirmationCode.grouped(value) }

    /// Checks `typed` (case, spaces and dashes ignored); a wrong one uses up a try.
    mutating func check(_ typed: String) -> Check {
        guard attemptsLeft > 0 else { return .burnt }
        let candidate = ConfirmationCode.normalized(typed) ?? ""
        // Constant time over the normalised bytes: how much of a guess matched must not show.
        if !value.isEmpty, ConstantTime.equals(Array(candidate.utf8), Array(value.utf8)) { return .accepted }
        attemptsLeft -= 1
        return attemptsLeft == 0 ? .burnt : .wrong(remaining: attemptsLeft)
    }
}
