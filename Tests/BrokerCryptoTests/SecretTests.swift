import BrokerCrypto
import Testing

private let tokenText = "ya29.hunter2-ACCESS-token"

/// A value that holds a secret, as an account or token record would.
private struct Holder {
    let name = "work"
    let token = Secret(tokenText)
}

private func leaks(_ text: String) -> Bool {
    text.contains("hunter2") || text.contains("121, 97, 50") || text.contains("ACCESS")
}

@Test func secretsNeverRenderTheirBytes() {
    let secret = Secret(tokenText)
    var dumped = ""
    dump(secret, to: &dumped)
    var dumpedHolder = ""
    dump(Holder(), to: &dumpedHolder)
    let renderings = [
        secret.description, secret.debugDescription, String(describing: secret), String(reflecting: secret),
        "\(secret)", "\(String(describing: [secret]))", "\(Optional(secret) as Any)", dumped, dumpedHolder,
        String(describing: Holder()), String(reflecting: Holder()), "\(Mirror(reflecting: secret).children.count)",
        try! SymmetricKey(bytes: [UInt8](repeating: 0x41, count: 32)).description,
    ]
    for text in renderings {
        #expect(!leaks(text), "rendering leaked: \(text.count) chars")
    }
    #expect(secret.description == "<redacted>")
    #expect(String(reflecting: secret) == "<redacted>")
    #expect(Mirror(reflecting: secret).children.isEmpty)
    #expect(dumpedHolder.contains("work"), "the dump itself must work, only the secret is hidden")
}

@Test func secretsRevealOnlyOnRequest() {
    let secret = Secret(tokenText)
    #expect(secret.revealString() == tokenText)
    #expect(secret.revealBytes() == ascii(tokenText))
    #expect(secret.count == tokenText.utf8.count)
    #expect(!secret.isEmpty && Secret("").isEmpty)
    #expect(secret.withUnsafeBytes { Array($0) } == ascii(tokenText))
    #expect(Secret([0xff, 0xfe]).revealString() == "\u{FFFD}\u{FFFD}", "invalid UTF-8 is repaired, not trapped on")
}

@Test func secretEqualityComparesBytes() {
    #expect(Secret(tokenText) == Secret(ascii(tokenText)))
    #expect(Secret(tokenText) != Secret(tokenText + "x"))
    #expect(Secret("a") != Secret("b"))
    #expect(Secret("") == Secret([UInt8]()))
    let key = try? SymmetricKey(bytes: [UInt8](repeating: 7, count: 32))
    #expect(key == (try? SymmetricKey(bytes: [UInt8](repeating: 7, count: 32))))
}
