/// Standard base64 with padding (RFC 4648 §4), as HTTP Basic credentials are sent (RFC 7617).
/// Pure Swift so that no HTTP layer needs libcrypto for it.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        for start in stride(from: 0, to: input.count, by: 3) {
            let group = input[start..<min(start + 3, input.count)]
            // The group's bytes, left-aligned in 24 bits; missing bytes read as zero.
            var bits: UInt32 = 0
            for (position, byte) in group.enumerated() { bits |= UInt32(byte) << (16 - 8 * position) }
            // n bytes carry n + 1 sextets; the rest of the 4 characters is padding.
            for sextet in 0...3 {
                output.append(sextet <= group.count ? alphabet[Int(bits >> (18 - 6 * sextet) & 63)] : UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
