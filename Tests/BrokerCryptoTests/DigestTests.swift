import BrokerCrypto
import Testing
import WireFormats

/// FIPS 180-2 Appendix B/C and the NIST example messages: "abc", empty, the two-block message
/// (448 bits for SHA-256, 896 bits for SHA-384/512) and one million 'a'.
private let abc = ascii("abc")
private let twoBlock256 = ascii("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
private let twoBlock512 = ascii(
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
private let millionA = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)

@Test func sha256FIPS180Vectors() {
    #expect(SHA256.hash(abc) == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    #expect(SHA256.hash([]) == hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    #expect(SHA256.hash(twoBlock256) == hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"))
    #expect(SHA256.hash(millionA) == hex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"))
    #expect(SHA256.hash(abc[...]) == SHA256.hash(abc))
}

@Test func sha384FIPS180Vectors() {
    #expect(
        SHA384.hash(abc)
            == hex(
                """
                cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7
                """))
    #expect(
        SHA384.hash([])
            == hex(
                """
                38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b
                """))
    #expect(
        SHA384.hash(twoBlock512)
            == hex(
                """
                09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039
                """))
    #expect(
        SHA384.hash(millionA)
            == hex(
                """
                9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985
                """))
}

@Test func sha512FIPS180Vectors() {
    #expect(
        SHA512.hash(abc)
            == hex(
                """
                ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
                2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f
                """))
    #expect(
        SHA512.hash([])
            == hex(
                """
                cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce\
                47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e
                """))
    #expect(
        SHA512.hash(twoBlock512)
            == hex(
                """
                8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018\
                501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909
                """))
    #expect(
        SHA512.hash(millionA)
            == hex(
                """
                e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb\
                de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b
                """))
}

@Test func pkceS256ChallengeRFC7636AppendixB() {
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    #expect(Base64URL.encode(SHA256.hash(Array(verifier.utf8))) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
}

/// RFC 4231 §4.2–4.8.
@Test(arguments: [
    (
        hex(String(repeating: "0b", count: 20)), ascii("Hi There"),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    ),
    (
        ascii("Jefe"), ascii("what do ya want for nothing?"),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    ),
    (
        hex(String(repeating: "aa", count: 20)), hex(String(repeating: "dd", count: 50)),
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
    ),
    (
        Array(1...25), hex(String(repeating: "cd", count: 50)),
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
    ),
    (
        hex(String(repeating: "0c", count: 20)), ascii("Test With Truncation"),
        "a3b6167473100ee06e0c796c2955552b"
    ),  // case 5: only the first 128 bits are specified
    (
        hex(String(repeating: "aa", count: 131)), ascii("Test Using Larger Than Block-Size Key - Hash Key First"),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    ),
    (
        hex(String(repeating: "aa", count: 131)),
        ascii(
            "This is a test using a larger than block-size key and a larger than block-size data. "
                + "The key needs to be hashed before being used by the HMAC algorithm."),
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
    ),
])
func hmacSHA256RFC4231(key: [UInt8], message: [UInt8], expected: String) throws {
    let mac = try HMACSHA256.authenticationCode(key: key, message: message)
    #expect(mac.count == 32)
    #expect(Array(mac.prefix(hex(expected).count)) == hex(expected))
}

@Test func hmacSHA256WithEmptyKeyAndMessage() throws {
    #expect(
        try HMACSHA256.authenticationCode(key: [], message: [])
            == hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
}
