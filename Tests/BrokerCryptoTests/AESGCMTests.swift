import BrokerCrypto
import Testing

@Test func sealOpenRoundTripWithAssociatedData() throws {
    let key = try SymmetricKey.generate()
    let aad = Array("authbroker/v1/1/access_token".utf8)
    let sealed = try AESGCM.seal(Array("hello".utf8), key: key, associatedData: aad)
    #expect(sealed.count == 5 + AESGCM.overhead)
    #expect(try AESGCM.open(sealed, key: key, associatedData: aad) == Array("hello".utf8))
    #expect(throws: CryptoError.authenticationFailed) {
        try AESGCM.open(sealed, key: key, associatedData: Array("authbroker/v1/2/access_token".utf8))
    }
}
