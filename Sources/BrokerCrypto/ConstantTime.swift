import COpenSSL

/// Comparison whose running time does not depend on where the inputs differ.
public enum ConstantTime {
    /// True when both buffers have the same length and bytes. The length itself is not secret.
    public static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let equal = a.count == b.count && (a.count == 0 || CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0)
        comparisonObserver?(a, b, equal)
        return equal
    }

    /// Test seam: shown both inputs and the result of every comparison made in this task, so a
    /// test can check that a caller (the callback's `state` check) compares through here, not
    /// with `==`. Task-local: tests side by side see only their own; nil otherwise.
    @_spi(Testing) @TaskLocal public static var comparisonObserver:
        (@Sendable (UnsafeRawBufferPointer, UnsafeRawBufferPointer, Bool) -> Void)?

    public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let left = Array(a)
        let right = Array(b)
        return left.withUnsafeBytes { l in right.withUnsafeBytes { r in equals(l, r) } }
    }

    /// Compares two strings' UTF-8 bytes in constant time (for `state` and similar values).
    public static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}
