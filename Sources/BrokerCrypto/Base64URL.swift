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
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int((chunk >> UInt32(shift)) & 63)]) }
            index += 3
        }
        switch input.count - index {
        case 1:
            let chunk = UInt32(input[index]) << 16
            output.append(alphabet[Int((chunk >> 18) & 63)])
            output.append(alphabet[Int((chunk >> 12) & 63)])
        case 2:
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int((chunk >> 18) & 63)])
            output.append(alphabet[Int((chunk >> 12) & 63)])
            output.append(alphabet[Int((chunk >> 6) & 63)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    public static func decode(_ text: some StringProtocol) throws(CryptoError) -> [UInt8] {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { throw .invalidBase64URL }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in input {
            let value = decodeTable[Int(character)]
            guard value >= 0 else { throw .invalidBase64URL }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
        }
        // Leftover bits must be zero, or two texts would decode to the same bytes.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { throw .invalidBase64URL }
        return output
    }
}
