/// The first media type named by an `Accept` or `Content-Type` value, compared on the header's
/// UTF-8 bytes with no split or lowercased copy: both are read on hot routes (every plain-text
/// token and every proof body; the Character-based split was ≈ 7,000 instructions a request,
/// docs/BENCHMARKS-archive.md, "DPoP proofs: the rest of the proof's own CPU").
enum MediaType {
    /// True when the media type before the first `;` (and, for a `list` such as `Accept`, the
    /// first `,`) is `expected`, blanks around it ignored and ASCII case folded: a media type is a
    /// token (RFC 9110 §8.3.1), so "TEXT/Plain" is "text/plain".
    static func first(of header: String, is expected: StaticString, list: Bool) -> Bool {
        let bytes = header.utf8
        let end = bytes.firstIndex { $0 == UInt8(ascii: ";") || (list && $0 == UInt8(ascii: ",")) } ?? bytes.endIndex
        let blank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes[..<end].firstIndex(where: { !blank($0) }),
            let last = bytes[..<end].lastIndex(where: { !blank($0) })
        else { return false }
        let media = bytes[first...last]
        let wanted = UnsafeBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount)
        return media.count == wanted.count
            && zip(media, wanted).allSatisfy { byte, wanted in
                byte == wanted || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == wanted)
            }
    }
}
