// The libc functions the front calls. Embedded Swift has no Glibc module: each is declared here
// with its C signature (x86-64 and aarch64 Linux: int is Int32, size_t/ssize_t are Int).

@_extern(c, "read") func c_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int
@_extern(c, "write") func c_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int
@_extern(c, "send") func c_send(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int
@_extern(c, "close") func c_close(_ fd: Int32) -> Int32
@_extern(c, "socket") func c_socket(_ domain: Int32, _ type: Int32, _ protocol: Int32) -> Int32
@_extern(c, "connect") func c_connect(_ fd: Int32, _ address: UnsafeRawPointer?, _ length: UInt32) -> Int32
@_extern(c, "getsockopt")
func c_getsockopt(
    _ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeMutableRawPointer?, _ length: UnsafeMutablePointer<UInt32>?
) -> Int32
@_extern(c, "setsockopt")
func c_setsockopt(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeRawPointer?, _ length: UInt32) -> Int32
@_extern(c, "getuid") func c_getuid() -> UInt32
@_extern(c, "getenv") func c_getenv(_ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>?
@_extern(c, "strlen") func c_strlen(_ string: UnsafePointer<CChar>?) -> Int
@_extern(c, "readlink") func c_readlink(_ path: UnsafePointer<CChar>?, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int
@_extern(c, "execve")
func c_execve(
    _ path: UnsafePointer<CChar>?, _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>?,
    _ environment: UnsafePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32
@_extern(c, "strerror") func c_strerror(_ code: Int32) -> UnsafePointer<CChar>?
@_extern(c, "__errno_location") func c_errno_location() -> UnsafeMutablePointer<Int32>

enum LibC {
    static let afUnix: Int32 = 1
    static let sockStreamCloexec: Int32 = 1 | 0o2000000  // SOCK_STREAM | SOCK_CLOEXEC
    static let solSocket: Int32 = 1
    static let soPeercred: Int32 = 17
    static let soRcvtimeo: Int32 = 20
    static let eintr: Int32 = 4
    static let enoent: Int32 = 2
    /// A daemon that refuses our uid answers at accept and closes: a write must fail, not kill.
    static let msgNosignal: Int32 = 0x4000
    /// sizeof(struct sockaddr_un) and of its sun_path.
    static let socketAddressSize = 110
    static let socketPathCapacity = 108

    static var errno: Int32 { c_errno_location().pointee }
}
