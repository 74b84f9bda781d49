/// Base64 (RFC 4648): the one codec of every module. `Base64` is the standard alphabet with
/// padding (§4: HTTP Basic credentials, RFC 7617; certificate pins); `Base64URL` the URL alphabet
/// without padding (§5: JWS, JWK, PKCE, DPoP). Both decoders are strict — no whitespace, no
/// characters of the other alphabet, padding exactly where the alphabet wants it, zero trailing
/// bits — so every byte string has exactly one accepted text form.
public enum Base64 {
    public static func encode(_ bytes: some Collection<UInt8>) -> String { Base64Codec.standard.encode(bytes) }

    /// The bytes `text` encodes, nil unless it is canonical padded standard base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? { Base64Codec.standard.decode(text.utf8) }
}

public enum Base64URL {
    public static func encode(_ bytes: some Collection<UInt8>) -> String { Base64Codec.url.encode(bytes) }

    public static func decode(_ text: some StringProtocol) throws(Base64Error) -> [UInt8] {
        guard let bytes = Base64Codec.url.decode(text.utf8) else { throw Base64Error() }
        return bytes
    }

    /// `decode` of text already in bytes (a JWS's parts), with no copy into a `String` first.
    public static func decode(_ utf8: ArraySlice<UInt8>) throws(Base64Error) -> [UInt8] {
        guard let bytes = utf8.withUnsafeBufferPointer(Base64Codec.url.decoded) else { throw Base64Error() }
        return bytes
    }
}

/// The text is not canonical base64 of the expected alphabet.
public struct Base64Error: Error, Equatable, Sendable {
    public init() {}
}

/// One alphabet's encoder and strict decoder, writing into the output's own storage: a DPoP proof
/// encodes three of these per request, an ID token's three parts are decoded at every refresh.
struct Base64Codec: Sendable {
    static let standard = Base64Codec(
        alphabet: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8), padded: true)
    static let url = Base64Codec(
        alphabet: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8), padded: false)

    let alphabet: [UInt8]
    let padded: Bool
    private let table: [Int8]

    init(alphabet: [UInt8], padded: Bool) {
        var table = [Int8](repeating: -1, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = Int8(index) }
        (self.alphabet, self.padded, self.table) = (alphabet, padded, table)
    }

    func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let length = padded ? (input.count + 2) / 3 * 4 : (input.count * 4 + 2) / 3
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
                    while written < length {
                        output[written] = UInt8(ascii: "=")
                        written += 1
                    }
                    return written
                }
            }
        }
    }

    func decode(_ utf8: some Collection<UInt8>) -> [UInt8]? {
        utf8.withContiguousStorageIfAvailable(decoded) ?? Array(utf8).withUnsafeBufferPointer(decoded)
    }

    /// The bytes `input` encodes, or nil when it is not this alphabet's canonical form.
    func decoded(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var body = input[...]
        if padded {
            guard input.count % 4 == 0 else { return nil }
            // At most two `=`, only at the end.
            while body.last == UInt8(ascii: "="), input.count - body.count < 2 { body = body.dropLast() }
        }
        guard body.count % 4 != 1 else { return nil }
        var valid = true
        let output = table.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: body.count * 3 / 4) { output, written in
                var accumulator: UInt32 = 0
                var bits = 0
                for character in body {
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
