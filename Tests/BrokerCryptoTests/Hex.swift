/// Bytes from a hex string in a test vector (spaces ignored). Traps on a typo in the vector.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace }.utf8)
    precondition(digits.count % 2 == 0, "odd-length hex vector")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        UInt8(String(decoding: digits[index..<(index + 2)], as: UTF8.self), radix: 16)!
    }
}

func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
