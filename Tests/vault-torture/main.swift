// vault-torture DATABASE KEYFILE [SECONDS]
//
// The crash-safety test's child process: writes token sets for the account "torture" in a loop,
// one transaction each, and prints the counter (one line, unbuffered) after every commit. The
// test SIGKILLs it at a random moment and checks that the last printed token set still opens.
// It continues from the stored counter, and stops by itself after SECONDS (default 5) so a
// forgotten child never outlives the test for long.
import BrokerCrypto
import BrokerProtocol
import BrokerStore

#if canImport(Glibc)
    import Glibc
#endif

func say(_ line: String, to descriptor: Int32) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

func torture(arguments: [String]) throws {
    guard arguments.count >= 3 else {
        say("usage: vault-torture DATABASE KEYFILE [SECONDS]", to: 2)
        exit(2)
    }
    let seconds = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
    let vault = try Vault.open(databasePath: arguments[1], keySource: .keyFile(path: arguments[2]))
    let account =
        try vault.account(named: "torture", owner: 1000)
        ?? vault.addAccount(
            AccountConfiguration(name: "torture", issuer: "https://idp.example", clientID: "torture"), owner: 1000, now: 0)
    // obtainedAt carries the counter: it is not secret, so it can be read without revealing a token.
    var counter = Int(try vault.loadTokens(accountID: account.id)?.obtainedAt ?? 0)
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        counter += 1
        try vault.saveTokens(
            TokenSet(
                accessToken: Secret("access-\(counter)"), refreshToken: Secret("refresh-\(counter)"),
                idToken: Secret("id-\(counter)"), expiresAt: Double(counter + 3600), obtainedAt: Double(counter)),
            accountID: account.id)
        say("\(counter)", to: 1)
    }
}

do {
    try torture(arguments: CommandLine.arguments)
} catch {
    say("vault-torture: \(error)", to: 2)
    exit(1)
}
