@_spi(Testing) import BrokerCrypto
import Synchronization
import Testing

/// docs/security.md "Secrets in memory": the bytes of a `Secret` are "wiped with
/// `OPENSSL_cleanse` when released". The release seam shows the buffer after the wipe and
/// before the free: without the wipe it would still hold the token.
@Suite struct SecretWipeTests {
    /// The buffers of the secrets released while `body` runs in this task, as they were just
    /// before their memory was freed; `body` is given those released so far.
    func releasedBuffers(_ body: (_ releasedSoFar: () -> [[UInt8]]) throws -> Void) rethrows -> [[UInt8]] {
        let seen = Mutex<[[UInt8]]>([])
        try Secret.$releaseObserver.withValue({ buffer in seen.withLock { $0.append(Array(buffer)) } }) {
            try body { seen.withLock { $0 } }
        }
        return seen.withLock { $0 }
    }

    @Test func aReleasedSecretIsAllZeroBeforeItsMemoryIsFreed() {
        let text = "rt-hunter2-refresh-token-0123456789"
        let released = releasedBuffers { _ in
            var secret: Secret? = Secret(text)
            #expect(secret?.revealString() == text)
            secret = nil
        }
        #expect(released.count == 1, "one secret released: \(released.count) buffers seen")
        #expect(released.first?.count == text.utf8.count)
        #expect(released.first?.allSatisfy { $0 == 0 } == true, "released bytes were not wiped")
    }

    @Test func copiesShareOneBufferThatIsWipedWhenTheLastCopyGoes() {
        let bytes = [UInt8](repeating: 0xA5, count: 32)
        let released = releasedBuffers { releasedSoFar in
            var first: Secret? = Secret(bytes)
            var copy: Secret? = first
            first = nil
            #expect(first == nil && releasedSoFar().isEmpty, "released while a copy still holds it")
            #expect(copy?.revealBytes() == bytes, "a copy still reads the bytes after the first copy is gone")
            copy = nil
        }
        #expect(released == [[UInt8](repeating: 0, count: 32)])
    }

    @Test func keysAreSecretsAndAreWipedToo() throws {
        let released = try releasedBuffers { _ in
            var key: SymmetricKey? = try SymmetricKey.generate()
            #expect(key?.secret.count == SymmetricKey.byteCount)
            key = nil
        }
        #expect(released == [[UInt8](repeating: 0, count: SymmetricKey.byteCount)])
    }
}
