/// Base64url without padding (RFC 4648 §5, as used by JWS and PKCE).
///
/// The decoder is strict: it rejects padding, whitespace, characters of the standard alphabet
/// (`+`, `/`), lengths of 1 mod 4, and non-canonical trailing bits — so every byte string has
/// exactly one accepted text form.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = Int8(index) }
        return table
    }()

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let length = (input.count * 4 + 2) / 3
        // Written into the String's own storage: a proof encodes three of these per request.
        return input.withUnsafeBufferPointer { input in
            alphabet.withUnsafeBufferPointer { alphabet in
                String(unsafeUninitializedCapacity: length) { output in
                    var (read, written) = (0, 0)
                    func emit(_ chunk: UInt32, _ count: Int) {
                        for shift in stride(from: 18, through: 18 - 6 * (count - 1), by: -6) {
                            output[written] = alphabet[Int((chunk >> UInt32(shift)) & 63)]
                            written += 1
                        }
                    }
                    while read + 3 <= input.count {
                        emit(UInt32(input[read]) << 16 | UInt32(input[read + 1]) << 8 | UInt32(input[read + 2]), 4)
                        read += 3
                    }
                    switch input.count - read {
                    case 1: emit(UInt32(input[read]) << 16, 2)
                    case 2: emit(UInt32(input[read]) << 16 | UInt32(input[read + 1]) << 8, 3)
                    default: break
                    }
                    return written
                }
            }
        }
    }

    public static func decode(_ text: some StringProtocol) throws(CryptoError) -> [UInt8] {
        let decoded = text.utf8.withContiguousStorageIfAvailable(decoded) ?? Array(text.utf8).withUnsafeBufferPointer(decoded)
        guard let decoded else { throw .invalidBase64URL }
        return decoded
    }

    /// `decode` of text already in bytes (a JWS's parts), with no copy into a `String` first.
    static func decode(_ utf8: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8] {
        guard let decoded = utf8.withUnsafeBufferPointer(decoded) else { throw .invalidBase64URL }
        return decoded
    }

    /// The bytes `input` encodes, or nil when it is not strict unpadded base64url. Writes into the
    /// array's own storage: an ID token's three parts are decoded at every login and refresh.
    private static func decoded(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard input.count % 4 != 1 else { return nil }
        var valid = true
        let output = decodeTable.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: input.count * 3 / 4) { output, written in
                var accumulator: UInt32 = 0
                var bits = 0
                for character in input {
                    let value = table[Int(character)]
                    guard value >= 0 else {
                        valid = false
                        return
                    }
                    accumulator = accumulator << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        output[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                        written += 1
                    }
                }
                // Leftover bits must be zero, or two texts would decode to the same bytes.
                valid = accumulator & ((1 << UInt32(bits)) - 1) == 0
            }
        }
        return valid ? output : nil
    }
}
