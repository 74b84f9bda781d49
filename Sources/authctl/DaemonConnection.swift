/// A connected AF_UNIX stream socket to a daemon of this user (or root), as BrokerProtocol's
/// UnixConnection checks it with SO_PEERCRED. A daemon of another uid, or one root placed in a
/// system directory for this user, is left to the full CLI, which has the whole rule and says why
/// it refuses.
struct DaemonConnection {
    private let fd: Int32

    init?(path: [UInt8]) {
        var address = [UInt8](repeating: 0, count: LibC.socketAddressSize)
        address[0] = UInt8(LibC.afUnix)  // sun_family, little-endian
        guard path.count < LibC.socketPathCapacity else { return nil }
        address.replaceSubrange(2..<(2 + path.count), with: path)
        let fd = c_socket(LibC.afUnix, LibC.sockStreamCloexec, 0)
        guard fd >= 0 else { return nil }
        self.fd = fd
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = UInt32(MemoryLayout.size(ofValue: credentials))
        var timeout: (seconds: Int, microseconds: Int) = (TokenFastPath.answerTimeoutSeconds, 0)
        guard c_connect(fd, address, UInt32(LibC.socketAddressSize)) == 0,
            c_getsockopt(fd, LibC.solSocket, LibC.soPeercred, &credentials, &length) == 0,
            credentials.uid == c_getuid() || credentials.uid == 0,
            c_setsockopt(fd, LibC.solSocket, LibC.soRcvtimeo, &timeout, UInt32(MemoryLayout.size(ofValue: timeout))) == 0
        else {
            close()
            return nil
        }
    }

    func close() { _ = c_close(fd) }

    /// False when the daemon closed first (it may have answered a refusal: the full CLI reads it).
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { c_send(fd, $0.baseAddress! + offset, $0.count - offset, LibC.msgNosignal) }
            if sent < 0, LibC.errno == LibC.eintr { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// The answer's bytes once its head and Content-Length bytes of body are in; nil on a close,
    /// an error or the timeout before that, or an answer larger than `limit`.
    func receiveAnswer(limit: Int) -> [UInt8]? {
        var answer = [UInt8](repeating: 0, count: limit)
        var received = 0
        while received < limit {
            let count = answer.withUnsafeMutableBytes { c_read(fd, $0.baseAddress! + received, limit - received) }
            if count < 0, LibC.errno == LibC.eintr { continue }
            guard count > 0 else { return nil }
            received += count
            let bytes = answer[0..<received]
            if let head = TokenAnswer.headLength(bytes) {
                // Without a usable Content-Length the end is unknown: the full CLI reads it.
                guard let body = TokenAnswer.contentLength(bytes.prefix(head)) else { return nil }
                if received >= head + body { return received == head + body ? Array(bytes) : nil }
            }
        }
        return nil
    }
}

/// The daemon's answer to the token request, read as strictly as the front needs: anything it
/// does not recognise is left to the full CLI's parser.
enum TokenAnswer {
    /// The token: the body of a `200` with Content-Length and no Transfer-Encoding, without
    /// trailing CR/LF, when it is a non-empty run of visible ASCII (what tokens are; nothing that
    /// a terminal would interpret).
    static func token(in answer: [UInt8]) -> [UInt8]? {
        guard answer.starts(with: "HTTP/1.1 200 ".utf8), let head = headLength(answer[...]),
            let length = contentLength(answer[0..<head]), head + length == answer.count
        else { return nil }
        var body = answer[head...]
        while let last = body.last, last == 10 || last == 13 { body = body.dropLast() }
        guard !body.isEmpty, body.allSatisfy({ $0 > 32 && $0 < 127 }) else { return nil }
        return Array(body)
    }

    /// The length of the head including its blank line.
    static func headLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        while index + 3 < bytes.endIndex {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                return index + 4 - bytes.startIndex
            }
            index += 1
        }
        return nil
    }

    /// Content-Length's value; nil when absent, repeated, malformed, or next to a
    /// Transfer-Encoding field.
    static func contentLength(_ head: ArraySlice<UInt8>) -> Int? {
        var value: Int?
        for line in head.split(separator: 10) {
            if fieldName(line, is: "transfer-encoding") != nil { return nil }
            guard let rest = fieldName(line, is: "content-length") else { continue }
            guard value == nil else { return nil }
            let digits = rest.drop { $0 == 32 || $0 == 9 }.prefix { $0 != 13 && $0 != 32 && $0 != 9 }
            guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            value = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        return value
    }

    /// What follows `name:` when the line is that field (names compare case-insensitively).
    static func fieldName(_ line: ArraySlice<UInt8>, is name: StaticString) -> ArraySlice<UInt8>? {
        let count = name.utf8CodeUnitCount
        guard line.count > count, line[line.startIndex + count] == 58 else { return nil }
        for offset in 0..<count {
            let byte = line[line.startIndex + offset]
            let lower = byte >= 65 && byte <= 90 ? byte + 32 : byte
            guard lower == name.utf8Start[offset] else { return nil }
        }
        return line[(line.startIndex + count + 1)...]
    }
}
