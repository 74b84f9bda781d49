import COpenSSL

/// Secret bytes — a token, a key, a client secret — that never print themselves.
///
/// `description` and `debugDescription` are `<redacted>`, so a secret interpolated into a log line
/// or an error message leaks nothing. The bytes live in a private heap buffer that is wiped with
/// `OPENSSL_cleanse` when the last copy is released. Reveal them explicitly, at the last moment,
/// with `withUnsafeBytes`, `revealBytes()` or `revealString()`.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let storage: SecretStorage

    public init(_ bytes: some Collection<UInt8>) {
        storage = SecretStorage(bytes)
    }

    public init(_ string: String) {
        self.init(Array(string.utf8))
    }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.count == 0 }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.pointer, count: storage.count))
    }

    /// A copy of the bytes. The copy is an ordinary array: keep it short-lived.
    public func revealBytes() -> [UInt8] { withUnsafeBytes { Array($0) } }

    /// The bytes as UTF-8 text (tokens are ASCII). Invalid UTF-8 is repaired, never trapped on.
    public func revealString() -> String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: []) }

    /// Constant-time comparison.
    public static func == (lhs: Secret, rhs: Secret) -> Bool {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in ConstantTime.equals(a, b) } }
    }
}

extension Secret {
    /// Test seam: shown the buffer of each `Secret` released in this task, after the wipe and
    /// before the free, so a test can see that no byte survives release. Task-local, so tests
    /// running side by side see only their own secrets; nil (one task-local read) otherwise.
    @_spi(Testing) @TaskLocal public static var releaseObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)?
}

/// Owns the heap buffer behind a `Secret`.
///
/// `@unchecked Sendable` is sound: the buffer is written only in `init` (before the object is shared)
/// and in `deinit` (after the last reference is gone); in between it is read-only.
private final class SecretStorage: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    let count: Int

    init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        // One memcpy for arrays and buffers: the byte loop below costs ~10 ns a byte, which made
        // restoring 1,000 accounts' tokens a third of the daemon's start-up (bench/daemon-footprint.sh).
        let pointer = pointer
        let copied = bytes.withContiguousStorageIfAvailable { buffer in
            if let base = buffer.baseAddress { pointer.copyMemory(from: base, byteCount: buffer.count) }
        }
        guard copied == nil else { return }
        var offset = 0
        for byte in bytes {
            pointer.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
    }

    deinit {
        OpenSSLCleanse.cleanse(pointer, max(count, 1))
        Secret.releaseObserver?(UnsafeRawBufferPointer(start: pointer, count: count))
        pointer.deallocate()
    }
}
