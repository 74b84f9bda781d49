import BrokerProtocol

/// What `authctl curl` needs from curl's own arguments: the request's method and its one URL, the
/// way curl decides them (`-X`/`--request` wins; `-I` is HEAD; `-G` is GET; `-T` is PUT; a body
/// option — `-d`, `--data*`, `--json`, `-F`, `--form*` — is POST; else GET).
///
/// Refused, because a proof is bound to one method and one URL: more than one URL (or none), a URL
/// that is not absolute, redirects (`-L`: curl would carry the headers elsewhere), `--next`,
/// `--config` (it could add URLs), `--request-target`, and headers that would clash with ours.
/// An option missing from `valueOptions` makes its value look like a second URL: refused too.
struct CurlArguments: Equatable {
    var method: String
    var url: String

    /// curl 7.88's options that take a value (`curl --help all`), long and short.
    static let valueOptions: Set<String> = Set(
        """
        abstract-unix-socket alt-svc aws-sigv4 cacert capath cert cert-type ciphers config connect-timeout connect-to
        continue-at cookie cookie-jar create-file-mode crlfile curves data data-ascii data-binary data-raw data-urlencode
        delegation dns-interface dns-ipv4-addr dns-ipv6-addr dns-servers doh-url dump-header egd-file engine etag-compare
        etag-save expect100-timeout form form-string ftp-account ftp-alternative-to-user ftp-method ftp-port
        ftp-ssl-ccc-mode happy-eyeballs-timeout-ms header hostpubmd5 hostpubsha256 hsts interface json keepalive-time key
        key-type krb libcurl limit-rate local-port login-options mail-auth mail-from mail-rcpt max-filesize max-redirs
        max-time netrc-file noproxy oauth2-bearer output output-dir parallel-max pass pinnedpubkey preproxy proto
        proto-default proto-redir proxy proxy-cacert proxy-capath proxy-cert proxy-cert-type proxy-ciphers proxy-crlfile
        proxy-header proxy-key proxy-key-type proxy-pass proxy-pinnedpubkey proxy-service-name proxy-tls13-ciphers
        proxy-tlsauthtype proxy-tlspassword proxy-tlsuser proxy-user pubkey quote random-file range rate referer request
        request-target resolve retry retry-delay retry-max-time sasl-authzid service-name socks4 socks4a socks5
        socks5-gssapi-service socks5-hostname speed-limit speed-time stderr telnet-option tftp-blksize time-cond tls-max
        tls13-ciphers tlsauthtype tlspassword tlsuser trace trace-ascii unix-socket upload-file url url-query user
        user-agent write-out
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { "--" + $0 })
    static let valueShortOptions: Set<Character> = Set("EKCbcdDFPHmoUQreXYytzTuAwx")
    /// Options whose effect would make the proof wrong or let headers go elsewhere.
    static let refused: [String: String] = [
        "--location": "redirects would carry the proof and token to another URL",
        "--location-trusted": "redirects would carry the proof and token to another URL",
        "--next": "a proof covers one request",
        "--config": "a config file could add URLs or headers; pass the options on the command line",
        "--request-target": "the proof covers the URL's own path",
        "--dump-header": "authctl curl reads the response headers itself (use -i to see them)",
        "--oauth2-bearer": "authctl curl sends the Authorization header",
        "--help": "see: curl --help",
    ]
    static let shortNames: [Character: String] = [
        "L": "--location", ":": "--next", "K": "--config", "D": "--dump-header", "h": "--help", "X": "--request",
        "d": "--data", "F": "--form", "T": "--upload-file", "I": "--head", "G": "--get", "H": "--header",
    ]

    init(_ arguments: [String]) throws(UsageError) {
        var explicitMethod: String?
        var bodyMethod: String?
        var urls: [String] = []
        var index = 0
        func take(_ name: String, _ value: String?) throws(UsageError) {
            if let why = Self.refused[name] { throw UsageError("'authctl curl' cannot pass \(name): \(why)") }
            switch name {
            case "--request": explicitMethod = value
            case "--head": bodyMethod = "HEAD"
            case "--get": bodyMethod = "GET"
            case "--upload-file": bodyMethod = bodyMethod ?? "PUT"
            case "--url": if let value { urls.append(value) }
            case "--header", "--proxy-header": try Self.checkHeader(value ?? "")
            default:
                if bodyMethod == nil, name == "--json" || name.hasPrefix("--data") || name.hasPrefix("--form") {
                    bodyMethod = "POST"
                }
            }
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument.hasPrefix("--"), argument.count > 2 {
                if Self.valueOptions.contains(argument) {
                    guard index < arguments.count else { throw UsageError("curl option \(argument) needs a value") }
                    index += 1
                    try take(argument, arguments[index - 1])
                } else {
                    try take(argument, nil)
                }
            } else if argument.hasPrefix("-"), argument.count > 1 {
                var letters = Substring(argument.dropFirst())
                while let letter = letters.popFirst() {
                    let name = Self.shortNames[letter] ?? "-\(letter)"
                    guard Self.valueShortOptions.contains(letter) else {
                        try take(name, nil)
                        continue
                    }
                    var value = String(letters)
                    if value.isEmpty {
                        guard index < arguments.count else { throw UsageError("curl option -\(letter) needs a value") }
                        value = arguments[index]
                        index += 1
                    }
                    try take(name, value)
                    break
                }
            } else {
                urls.append(argument)
            }
        }
        guard urls.count == 1, let url = urls.first else {
            throw UsageError(
                urls.isEmpty
                    ? "'authctl curl' needs the URL to fetch; see: authctl curl --help"
                    : "'authctl curl' signs for one URL, found \(urls.count) (\(urls.joined(separator: " "))): "
                        + "run one request at a time (an option authctl does not know may have taken its value for a "
                        + "URL: then use authctl header with curl -H @file)")
        }
        guard url.contains("://") else {
            throw UsageError("'authctl curl' needs an absolute URL (https://host/path), got '\(url)'")
        }
        self.method = explicitMethod ?? bodyMethod ?? "GET"
        self.url = url
    }

    /// Our Authorization and DPoP headers must be the only ones.
    private static func checkHeader(_ header: String) throws(UsageError) {
        let name = header.prefix { $0 != ":" && $0 != ";" }.lowercased()
        if name == "authorization" || name == "dpop" {
            throw UsageError(
                "'authctl curl' sends the \(name == "dpop" ? "DPoP" : "Authorization") header itself; remove -H '\(name): …'")
        }
    }
}
