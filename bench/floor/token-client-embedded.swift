// What `authctl token` would cost as Embedded Swift (bench/authctl-floor.sh): the same socket
// exchange as bench/floor/token-client.c, with authctl's checks on the token path — the peer's
// uid (SO_PEERCRED), the account-name charset, a 200 status — and its output (the body without
// trailing CR/LF, plus one newline). A measurement, not a product: no timeouts, no delegation
// for errors. Build: swiftc -enable-experimental-feature Embedded -enable-experimental-feature
// Extern -wmo -Osize -parse-as-library token-client-embedded.swift -Xclang-linker -static
// usage: token-client-embedded SOCKET NAME

@_extern(c, "write") func c_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int
@_extern(c, "read") func c_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int
@_extern(c, "socket") func c_socket(_ domain: Int32, _ type: Int32, _ protocol: Int32) -> Int32
@_extern(c, "connect") func c_connect(_ fd: Int32, _ address: UnsafeRawPointer?, _ length: UInt32) -> Int32
@_extern(c, "getsockopt")
func c_getsockopt(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeMutableRawPointer?, _ length: UnsafeMutablePointer<UInt32>?) -> Int32
@_extern(c, "getuid") func c_getuid() -> UInt32
@_extern(c, "strlen") func c_strlen(_ string: UnsafePointer<CChar>?) -> Int

@_cdecl("main")
func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    guard argc == 3, let path = argv[1], let name = argv[2] else { return 64 }
    return token(socket: UnsafeRawBufferPointer(start: path, count: c_strlen(path)),
        name: UnsafeRawBufferPointer(start: name, count: c_strlen(name)))
}

func token(socket path: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer) -> Int32 {
    guard !name.isEmpty, name.count <= 64, name[0] != 45, name[0] != 46,
        name.allSatisfy({ ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 || $0 == 46 })
    else { return 64 }
    var address = [UInt8](repeating: 0, count: 110)
    address[0] = 1  // AF_UNIX
    guard path.count < 108 else { return 64 }
    for index in 0..<path.count { address[2 + index] = path[index] }
    let fd = c_socket(1, 1 | 0o2000000, 0)  // SOCK_STREAM | SOCK_CLOEXEC
    guard fd >= 0, c_connect(fd, address, 110) == 0 else { return 69 }
    var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
    var length: UInt32 = 12
    guard c_getsockopt(fd, 1, 17, &credentials, &length) == 0, credentials.uid == c_getuid() || credentials.uid == 0 else { return 1 }
    var request = Array("GET /v1/accounts/".utf8)
    request.append(contentsOf: name)
    request.append(contentsOf: "/token HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n\r\n".utf8)
    guard c_write(fd, request, request.count) == request.count else { return 69 }
    var answer = [UInt8](repeating: 0, count: 16_384)
    var received = 0
    repeat {
        let count = answer.withUnsafeMutableBytes { c_read(fd, $0.baseAddress! + received, $0.count - received) }
        guard count > 0 else { return 69 }
        received += count
    } while !complete(answer, received) && received < answer.count
    guard received > 12, answer[9] == 50, answer[10] == 48, answer[11] == 48, let start = headEnd(answer, received) else { return 1 }
    var end = received
    while end > start, answer[end - 1] == 10 || answer[end - 1] == 13 { end -= 1 }
    guard end < answer.count else { return 1 }
    answer[end] = 10
    return answer.withUnsafeBytes { c_write(1, $0.baseAddress! + start, end + 1 - start) } == end + 1 - start ? 0 : 1
}

/// The index after the blank line ending the head, if received.
func headEnd(_ bytes: [UInt8], _ count: Int) -> Int? {
    var index = 0
    while index + 3 < count {
        if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index + 4 }
        index += 1
    }
    return nil
}

/// Whether the head and the Content-Length bytes of body are in.
func complete(_ bytes: [UInt8], _ count: Int) -> Bool {
    guard let start = headEnd(bytes, count) else { return false }
    let field = Array("\r\ncontent-length:".utf8)
    var index = 0
    while index + field.count < start {
        var matches = true
        for offset in 0..<field.count where bytes[index + offset] | (offset >= 2 ? 0x20 : 0) != field[offset] { matches = false; break }
        if matches {
            var position = index + field.count
            while bytes[position] == 32 { position += 1 }
            var length = 0
            while bytes[position] >= 48 && bytes[position] <= 57 { length = length * 10 + Int(bytes[position] - 48); position += 1 }
            return count - start >= length
        }
        index += 1
    }
    return false
}
