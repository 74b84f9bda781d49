import WireFormats

/// Which HTTP CONNECT proxy (if any) carries requests, read from the usual environment
/// variables: `https_proxy`/`HTTPS_PROXY`, `http_proxy`/`HTTP_PROXY`, `no_proxy`/`NO_PROXY`.
///
/// Loopback hosts never go through a proxy. `NO_PROXY` is a comma list of `*`, domain
/// suffixes (`example.com` and `.example.com` both match the domain and its subdomains),
/// `host:port`, and IP literals. The description never shows proxy credentials.
public struct ProxyConfiguration: Sendable, Hashable, CustomStringConvertible {
    public var httpsProxy: ProxyEndpoint?
    public var httpProxy: ProxyEndpoint?
    /// Lowercased NO_PROXY entries.
    public var noProxy: [String]

    /// No proxy at all.
    public static let none = ProxyConfiguration(httpsProxy: nil, httpProxy: nil, noProxy: [])

    public init(httpsProxy: ProxyEndpoint?, httpProxy: ProxyEndpoint? = nil, noProxy: [String] = []) {
        self.httpsProxy = httpsProxy
        self.httpProxy = httpProxy
        self.noProxy = noProxy.map { $0.lowercased() }
    }

    /// Reads the proxy variables from `environment` (pass `ProcessInfo.processInfo.environment`
    /// in the daemon; tests pass a dictionary). Lowercase names win over uppercase ones.
    public init(environment: [String: String]) throws(HTTPClientConfigurationError) {
        func value(_ name: String) -> String? {
            let found = environment[name.lowercased()] ?? environment[name.uppercased()]
            return found.flatMap { $0.trimmingSpaces.isEmpty ? nil : $0.trimmingSpaces }
        }
        let https = try value("https_proxy").map { text throws(HTTPClientConfigurationError) in
            try ProxyEndpoint(url: text, variable: "HTTPS_PROXY")
        }
        let http = try value("http_proxy").map { text throws(HTTPClientConfigurationError) in
            try ProxyEndpoint(url: text, variable: "HTTP_PROXY")
        }
        let entries = (value("no_proxy") ?? "").split(separator: ",").map { String($0).trimmingSpaces }
        self.init(httpsProxy: https, httpProxy: http, noProxy: entries.filter { !$0.isEmpty })
    }

    /// The proxy to use for `url`, or nil to connect directly.
    func proxy(for url: ClientURL) -> ProxyEndpoint? {
        guard let endpoint = url.scheme == .https ? httpsProxy : httpProxy else { return nil }
        if url.hostIsLoopback || bypasses(host: url.host, port: url.port) { return nil }
        return endpoint
    }

    /// True when a NO_PROXY entry covers `host:port`.
    func bypasses(host: String, port: Int) -> Bool {
        noProxy.contains { entry in Self.entry(entry, matches: host.lowercased(), port: port) }
    }

    private static func entry(_ entry: String, matches host: String, port: Int) -> Bool {
        if entry == "*" { return true }
        var name = Substring(entry)
        if let (entryHost, entryPort) = try? Host.withPort(name), let entryPort {
            guard entryPort == port else { return false }
            name = Substring(entryHost.text)
        } else if name.hasPrefix("["), name.hasSuffix("]") {
            name = name.dropFirst().dropLast()
        }
        while name.hasPrefix(".") { name = name.dropFirst() }
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty else { return false }
        if Host(address: name) != nil || Host(address: host) != nil { return host == name }
        return host == name || host.hasSuffix("." + name)
    }

    public var description: String {
        "ProxyConfiguration(https: \(httpsProxy?.description ?? "none"), http: \(httpProxy?.description ?? "none"), no_proxy: \(noProxy))"
    }
}

/// An HTTP proxy reached with CONNECT. Credentials from the URL become a Basic
/// `Proxy-Authorization` value that is never shown by `description`.
public struct ProxyEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// The full `Proxy-Authorization` header value, if the proxy URL had credentials.
    var authorization: String?

    public init(host: String, port: Int) {
        self.host = host.lowercased()
        self.port = port
    }

    /// Parses `http://[user:password@]host[:port]` (the scheme may be omitted; port defaults to 1080).
    public init(url text: String, variable: String = "proxy URL") throws(HTTPClientConfigurationError) {
        let url = try? AbsoluteURL(text.contains("://") ? text : "http://" + text)
        if let url, url.scheme != "http" {
            throw HTTPClientConfigurationError("\(variable) must be an http:// proxy (other proxy schemes are not supported)")
        }
        guard let url, url.host.kind != .name || url.host.text.utf8.allSatisfy(ClientURL.isResolvableNameByte) else {
            throw HTTPClientConfigurationError("\(variable) has no valid host[:port]; set it like http://proxy.example:3128")
        }
        self.init(host: url.host.text, port: url.port ?? 1080)
        if let credentials = url.userInfo {
            let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let user = PercentDecoding.decode(parts[0])
            let password = parts.count > 1 ? PercentDecoding.decode(parts[1]) : []
            authorization = "Basic " + Base64.encode(user + Array(":".utf8) + password)
        }
    }

    public var description: String {
        "\(Host(address: host)?.uriText ?? host):\(port)\(authorization == nil ? "" : " (with credentials)")"
    }
}

/// Percent-decoding of URL user info (invalid escapes are kept as they are).
enum PercentDecoding {
    static func decode(_ text: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
