import Glibc

extension HTTPListener {
    /// Listens on a loopback TCP address: `host` must be "127.0.0.1" or "::1" (the redirect
    /// listener must never be reachable from the network). Port 0 picks a free port; read it
    /// back from `port`.
    public static func tcp(host: String = "127.0.0.1", port: Int = 0, backlog: Int32 = 64) throws(HTTPServerError) -> HTTPListener
    {
        guard (0...65535).contains(port), host == "127.0.0.1" || host == "::1" else { throw .invalidAddress(host) }
        let family = host == "::1" ? AF_INET6 : AF_INET
        let fd = try Socket.make(family: family)
        Socket.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        if family == AF_INET6 { Socket.setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1) }
        guard bindLoopback(fd, family: family, port: UInt16(port)) == 0 else {
            let error = Socket.fail("bind", path: "\(host):\(port)")
            close(fd)
            throw error
        }
        guard listen(fd, backlog) == 0, let bound = boundPort(fd) else {
            let error = Socket.fail("listen", path: "\(host):\(port)")
            close(fd)
            throw error
        }
        return HTTPListener(fd: fd, address: .tcp(host: host, port: bound))
    }

    private static func bindLoopback(_ fd: Int32, family: Int32, port: UInt16) -> Int32 {
        if family == AF_INET6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        return ok ? peerAddress(storage).port : nil
    }

    /// Address text and port of an IPv4/IPv6 socket address.
    static func peerAddress(_ storage: sockaddr_storage) -> (address: String, port: Int) {
        var storage = storage
        let family = Int32(storage.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let port: Int = withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                    return Int(UInt16(bigEndian: address.pointee.sin6_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var raw = address.pointee.sin_addr
                inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                return Int(UInt16(bigEndian: address.pointee.sin_port))
            }
        }
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return (String(decoding: bytes, as: UTF8.self), port)
    }
}
