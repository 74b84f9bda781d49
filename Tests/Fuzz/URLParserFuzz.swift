// libFuzzer entry for AbsoluteURL and Host (WireFormats), the one URL parser of every module.
// Built by run-fuzzers.sh together with the WireFormats sources. Properties:
// - parsing never traps, and an accepted URL is at most `maximumLength` visible ASCII bytes;
// - the parts tile the text: scheme "://" [userinfo "@"] authority path ["?" query] ["#" fragment];
// - the host re-parses alone to itself, its loopback answer included, and `origin` and
//   `normalizedWithoutQuery` re-parse to the same scheme, host and port;
// - normalising is idempotent (servers re-normalise an `htu`);
// - loopback is exactly 127.0.0.0/8, ::1 and `localhost` (checked against an independent reading).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = Host(text)
    _ = Host(address: text)
    _ = try? Host.withPort(text)
    guard let url = try? AbsoluteURL(text) else { return 0 }
    let bytes = Array(text.utf8)
    precondition(bytes.count <= AbsoluteURL.maximumLength && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F })
    checkTiling(url, bytes)
    checkHost(url.host)
    let origin = try! AbsoluteURL(url.origin)
    precondition(origin.scheme == url.scheme && origin.host == url.host && origin.port == url.port && origin.path.isEmpty)
    let normalized = url.normalizedWithoutQuery
    let again = try! AbsoluteURL(normalized)
    precondition(
        again.host == url.host && again.effectivePort == url.effectivePort && again.query == nil && again.fragment == nil)
    precondition(again.normalizedWithoutQuery == normalized, "normalising is not idempotent")
    return 0
}

private func checkTiling(_ url: AbsoluteURL, _ bytes: [UInt8]) {
    var rebuilt = Array(bytes.prefix(url.scheme.utf8.count)) + Array("://".utf8)
    precondition(String(decoding: rebuilt.prefix(url.scheme.utf8.count), as: UTF8.self).lowercased() == url.scheme)
    if let userInfo = url.userInfo { rebuilt += Array(userInfo.utf8) + [UInt8(ascii: "@")] }
    let authorityStart = rebuilt.count
    let rest = bytes[authorityStart...]
    let authorityEnd =
        rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
    let authority = String(decoding: bytes[authorityStart..<authorityEnd], as: UTF8.self).lowercased()
    if let port = url.port {
        precondition(authority.hasPrefix(url.host.uriText + ":"), "the authority is not host:port")
        precondition(Int(authority.dropFirst(url.host.uriText.count + 1)) == port, "the port is not the written one")
    } else {
        precondition(authority == url.host.uriText, "the authority is not the host")
    }
    rebuilt += bytes[authorityStart..<authorityEnd] + Array(url.path.utf8)
    if let query = url.query { rebuilt += [UInt8(ascii: "?")] + Array(query.utf8) }
    if let fragment = url.fragment { rebuilt += [UInt8(ascii: "#")] + Array(fragment.utf8) }
    precondition(rebuilt == bytes, "the parts do not tile the text")
}

private func checkHost(_ host: Host) {
    guard let alone = Host(host.uriText) else { preconditionFailure("a parsed host does not parse alone") }
    precondition(alone == host && alone.isLoopback == host.isLoopback)
    let expected: Bool
    switch host.kind {
    case .name: expected = host.text == "localhost"
    case .ipv4: expected = host.text.split(separator: ".").first == "127"
    case .ipv6:
        let address = Array(host.text.utf8).withUnsafeBufferPointer { URLGrammar.ipv6($0[...]) }
        expected = address == Array(repeating: 0, count: 15) + [1]
    }
    precondition(host.isLoopback == expected, "the loopback rule disagrees with its definition")
    if host.kind != .name { precondition(Host(address: host.text) == host) }
}
