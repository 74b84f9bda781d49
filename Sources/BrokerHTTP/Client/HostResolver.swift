import Glibc
import SystemCalls

/// One socket address from the resolver, copied out of the `addrinfo` list.
struct ResolvedAddress {
    var family: Int32
    var storage: sockaddr_storage
    var length: socklen_t
}

/// Name resolution with the two special names of RFC 6761 answered locally: `localhost`
/// is always loopback (never sent to DNS) and `*.invalid` fails at once (no network needed).
enum HostResolver {
    static func resolve(host: String, port: Int) throws(HTTPClientError) -> [ResolvedAddress] {
        let lowered = host.lowercased()
        if lowered == "invalid" || lowered.hasSuffix(".invalid") || lowered.hasSuffix(".invalid.") {
            throw .dnsFailure(host: host, reason: "\".invalid\" names never resolve (RFC 6761); check the URL")
        }
        if lowered == "localhost" || lowered.hasSuffix(".localhost") {
            return try lookup("127.0.0.1", port: port, shownAs: host) + ((try? lookup("::1", port: port, shownAs: host)) ?? [])
        }
        return try lookup(host, port: port, shownAs: host)
    }

    private static func lookup(_ name: String, port: Int, shownAs host: String) throws(HTTPClientError) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == EAI_SYSTEM ? Errno.current.description : String(cString: gai_strerror(status))
            throw .dnsFailure(host: host, reason: "\(reason); check the host name and your DNS settings")
        }
        defer { freeaddrinfo(first) }
        var addresses: [ResolvedAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let socketAddress = entry.pointee.ai_addr {
                var storage = sockaddr_storage()
                let length = min(Int(entry.pointee.ai_addrlen), MemoryLayout<sockaddr_storage>.size)
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: socketAddress, count: length))
                }
                addresses.append(ResolvedAddress(family: entry.pointee.ai_family, storage: storage, length: socklen_t(length)))
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}
