/// The byte rules behind `AbsoluteURL` and `Host` (RFC 3986 §3, §3.2.2, §2.1): one pass over the
/// URL's UTF-8 bytes, no String algorithms (a `String` split here cost ≈ 40 k instructions a parse,
/// docs/BENCHMARKS-archive.md, "Forced refresh: the URL parses"), offsets into the text instead of copies.
enum URLGrammar {
    typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    struct Parts {
        var scheme: String
        var userInfo: Range<Int>?
        var host: Host
        var port: Int?
        var path: Range<Int>
        var query: Range<Int>?
        var fragment: Range<Int>?
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maximumLength: Int) throws(URLSyntaxError) -> Parts {
        guard bytes.count <= maximumLength else { throw .tooLong(maximum: maximumLength) }
        guard let separator = schemeSeparator(bytes), separator > 0 else { throw .notAbsolute }
        let schemeBytes = bytes[..<separator]
        guard isAlpha(schemeBytes[0]), schemeBytes.allSatisfy(isSchemeByte) else { throw .invalidScheme }
        guard bytes.allSatisfy(isVisibleASCII) else { throw .notVisibleASCII }
        let authorityStart = separator + 3
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count, !isAuthorityEnd(bytes[authorityEnd]) { authorityEnd += 1 }
        var hostStart = authorityStart
        var userInfo: Range<Int>?
        if let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
            userInfo = authorityStart..<at
            hostStart = at + 1
        }
        let (host, port) = try hostAndPort(bytes[hostStart..<authorityEnd])
        var pathEnd = authorityEnd
        while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        guard hasValidPercentEscapes(bytes[authorityEnd..<pathEnd]) else { throw .invalidPercentEncoding }
        var query: Range<Int>?
        var fragment: Range<Int>?
        var index = pathEnd
        if index < bytes.count, bytes[index] == UInt8(ascii: "?") {
            var queryEnd = index + 1
            while queryEnd < bytes.count, bytes[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
            query = (index + 1)..<queryEnd
            index = queryEnd
        }
        if index < bytes.count { fragment = (index + 1)..<bytes.count }
        return Parts(
            scheme: lowercased(schemeBytes), userInfo: userInfo, host: host, port: port, path: authorityEnd..<pathEnd,
            query: query, fragment: fragment)
    }

    /// `host[:port]` of an authority whose user info is already cut off.
    static func hostAndPort(_ authority: Bytes) throws(URLSyntaxError) -> (Host, Int?) {
        guard let first = authority.first else { throw .emptyHost }
        var portStart: Int?
        let host: Host
        if first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw .unclosedIPv6 }
            host = try ipv6Host(authority[(authority.startIndex + 1)..<close])
            if close + 1 < authority.endIndex {
                guard authority[close + 1] == UInt8(ascii: ":") else { throw .textAfterIPv6 }
                portStart = close + 2
            }
        } else {
            let colon = authority.firstIndex(of: UInt8(ascii: ":"))
            host = try nameOrIPv4Host(authority[..<(colon ?? authority.endIndex)])
            portStart = colon.map { $0 + 1 }
        }
        guard let portStart else { return (host, nil) }
        return (host, try port(authority[portStart...]))
    }

    /// 1–5 ASCII digits, 1…65535.
    static func port(_ digits: Bytes) throws(URLSyntaxError) -> Int {
        guard (1...5).contains(digits.count), digits.allSatisfy(isDigit) else { throw .invalidPort }
        let value = digits.reduce(0) { $0 * 10 + Int($1 &- UInt8(ascii: "0")) }
        guard (1...65535).contains(value) else { throw .invalidPort }
        return value
    }

    /// A registered name (lower-cased) or, when it is a dotted quad, an IPv4 address.
    static func nameOrIPv4Host(_ bytes: Bytes) throws(URLSyntaxError) -> Host {
        guard !bytes.isEmpty else { throw .emptyHost }
        guard bytes.allSatisfy(isRegisteredNameByte) else { throw .invalidHost }
        let text = lowercased(bytes)
        if let address = ipv4(bytes) {
            return Host(kind: .ipv4, text: text, isLoopback: Host.ipv4IsLoopback(address))
        }
        return Host(kind: .name, text: text, isLoopback: Host.nameIsLoopback(text))
    }

    /// The inside of `[…]`.
    static func ipv6Host(_ bytes: Bytes) throws(URLSyntaxError) -> Host {
        if bytes.contains(UInt8(ascii: "%")) { throw .ipv6Zone }
        guard let address = ipv6(bytes) else { throw .invalidIPv6 }
        return Host(kind: .ipv6, text: lowercased(bytes), isLoopback: Host.ipv6IsLoopback(address))
    }

    /// RFC 3986's IPv4address: four `dec-octet`s (0–255, no leading zero), nil for anything else.
    static func ipv4(_ bytes: Bytes) -> UInt32? {
        var address: UInt32 = 0
        var octets = 0
        var index = bytes.startIndex
        while index <= bytes.endIndex {
            var end = index
            while end < bytes.endIndex, isDigit(bytes[end]) { end += 1 }
            let count = end - index
            guard (1...3).contains(count), count == 1 || bytes[index] != UInt8(ascii: "0") else { return nil }
            let value = bytes[index..<end].reduce(UInt32(0)) { $0 * 10 + UInt32($1 &- UInt8(ascii: "0")) }
            guard value <= 255, octets < 4 else { return nil }
            address = address << 8 | value
            octets += 1
            if end == bytes.endIndex { break }
            guard bytes[end] == UInt8(ascii: ".") else { return nil }
            index = end + 1
        }
        return octets == 4 ? address : nil
    }

    /// RFC 4291 §2.2 text form (with `::` and a dotted-quad tail), as 16 bytes; nil for anything else.
    static func ipv6(_ bytes: Bytes) -> [UInt8]? {
        var groups: [UInt16] = []
        groups.reserveCapacity(8)
        var compressedAt: Int?
        var index = bytes.startIndex
        let end = bytes.endIndex
        if index < end, bytes[index] == UInt8(ascii: ":") {
            guard index + 1 < end, bytes[index + 1] == UInt8(ascii: ":") else { return nil }
            compressedAt = 0
            index += 2
        }
        while index < end {
            guard groups.count < 8 else { return nil }
            var digitsEnd = index
            var value = 0
            while digitsEnd < end, digitsEnd - index < 5, let digit = hexValue(bytes[digitsEnd]) {
                value = value << 4 | Int(digit)
                digitsEnd += 1
            }
            if digitsEnd < end, bytes[digitsEnd] == UInt8(ascii: ".") {
                guard groups.count <= 6, let tail = ipv4(bytes[index..<end]) else { return nil }
                groups += [UInt16(tail >> 16), UInt16(tail & 0xFFFF)]
                index = end
                break
            }
            guard (1...4).contains(digitsEnd - index) else { return nil }
            groups.append(UInt16(value))
            index = digitsEnd
            guard index < end else { break }
            guard bytes[index] == UInt8(ascii: ":"), index + 1 < end else { return nil }
            index += 1
            if bytes[index] == UInt8(ascii: ":") {
                guard compressedAt == nil else { return nil }
                compressedAt = groups.count
                index += 1
            }
        }
        if let compressedAt {
            guard groups.count <= 7 else { return nil }
            groups.insert(contentsOf: repeatElement(0, count: 8 - groups.count), at: compressedAt)
        }
        guard groups.count == 8 else { return nil }
        return groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// The index of the first `://`.
    static func schemeSeparator(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 3 else { return nil }
        for index in 0...(bytes.count - 3)
        where bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/") && bytes[index + 2] == UInt8(ascii: "/")
        {
            return index
        }
        return nil
    }

    static func hasValidPercentEscapes(_ bytes: Bytes) -> Bool {
        var index = bytes.startIndex
        while let percent = bytes[index...].firstIndex(of: UInt8(ascii: "%")) {
            guard percent + 2 < bytes.endIndex, hexValue(bytes[percent + 1]) != nil, hexValue(bytes[percent + 2]) != nil else {
                return false
            }
            index = percent + 3
        }
        return true
    }

    /// ASCII lower case into a new String (the bytes are visible ASCII).
    static func lowercased(_ bytes: Bytes) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            var offset = 0
            for byte in bytes {
                buffer[offset] = isUpper(byte) ? byte | 0x20 : byte
                offset += 1
            }
            return offset
        }
    }

    @inline(__always) static func isVisibleASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
    @inline(__always) static func isUpper(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "A") < 26 }
    @inline(__always) static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) &- UInt8(ascii: "a") < 26 }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        if isDigit(byte) { return byte - UInt8(ascii: "0") }
        let lower = byte | 0x20
        return lower &- UInt8(ascii: "a") < 6 ? lower - UInt8(ascii: "a") + 10 : nil
    }

    static func isSchemeByte(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    static func isAuthorityEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// RFC 3986 §2.3 unreserved (ALPHA / DIGIT / "-" / "." / "_" / "~").
    static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// reg-name without pct-encoded: unreserved / sub-delims (`!$&'()*+,;=`).
    static func isRegisteredNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&")...UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default: isUnreserved(byte)
        }
    }
}
