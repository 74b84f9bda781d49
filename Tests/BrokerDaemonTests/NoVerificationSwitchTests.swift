import BrokerHTTP
import BrokerProtocol
import Foundation
import Testing

@testable import BrokerDaemon

/// docs/security.md "Outbound HTTPS": "No option turns verification off." A negative claim, so
/// these enumerate every way to configure outbound TLS — the daemon's flags and environment
/// variables, the HTTP client's settings, an account's settings, authctl's flags — and fail when
/// one appears that is not reviewed here, or whose name speaks of disabling verification, or
/// when the sources gain a call that can switch OpenSSL's peer verification off.
@Suite struct NoVerificationSwitchTests {
    /// Words a switch that weakens certificate checking would carry.
    static var disabling: Regex<AnyRegexOutput> {
        try! Regex(
            "(?i)insecure|no.?verif|skip.?verif|verif[a-z]*.?(off|false|none|disable)|disable.?(tls|ssl|verif|cert)|unsafe|"
                + "allow.?(invalid|untrusted|self.?signed)|accept.?any|tls.?verify|ssl.?verify|no.?check|danger")
    }

    static func expectNoDisablingName(_ names: [String], in place: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for name in names {
            #expect(
                name.firstMatch(of: disabling) == nil, "\(place) has '\(name)', which reads like a TLS verification switch",
                sourceLocation: sourceLocation)
        }
    }

    static func labels(_ value: Any) -> [String] { Mirror(reflecting: value).children.compactMap(\.label) }

    /// The daemon's complete option list. Adding one fails here on purpose: check it cannot turn
    /// verification off (and docs/security.md still holds), then add it.
    @Test func theDaemonsFlagsAndVariablesAreTheReviewedOnes() throws {
        let flags = DaemonOptions.options.map(\.name)
        #expect(
            flags == [
                "--socket", "--state-dir", "--key-file", "--passphrase-file", "--ca-file", "--log-level", "--notify-command",
                "--allow-uid", "--approval-timeout", "--narrowed-refresh-limit", "--version", "--help", "-h",
            ])
        Self.expectNoDisablingName(flags, in: "authbrokerd")
        let variables = Set(
            DaemonOptions.usage.matches(of: try Regex("AUTHBROKER_[A-Z_]+")).map { String($0.output[0].substring!) })
        #expect(
            variables == [
                "AUTHBROKER_SOCKET", "AUTHBROKER_STATE_DIR", "AUTHBROKER_KEY_FILE", "AUTHBROKER_PASSPHRASE_FILE",
                "AUTHBROKER_CA_FILE", "AUTHBROKER_LOG_LEVEL", "AUTHBROKER_NOTIFY_COMMAND", "AUTHBROKER_APPROVAL_TIMEOUT",
                "AUTHBROKER_NARROWED_REFRESH_LIMIT",
                // given to the notify command, not read
                "AUTHBROKER_ACCOUNT", "AUTHBROKER_REASON", "AUTHBROKER_URL", "AUTHBROKER_EVENT", "AUTHBROKER_EXE",
            ])
        Self.expectNoDisablingName(Self.labels(try Self.parsedOptions()), in: "DaemonOptions")
    }

    /// The HTTP client's settings: the only TLS one adds trust (`caFile`); none removes a check.
    @Test func theHTTPClientHasNoSettingThatWeakensVerification() {
        let settings = Self.labels(HTTPClientConfiguration())
        #expect(
            settings == [
                "caFile", "connectTimeout", "totalTimeout", "maxResponseBytes", "proxy", "userAgent",
                "maxIdleConnectionsPerHost", "idleTimeout",
            ])
        Self.expectNoDisablingName(settings, in: "HTTPClientConfiguration")
        Self.expectNoDisablingName(Self.labels(ProxyConfiguration.none), in: "ProxyConfiguration")
    }

    /// What an account may set (over the socket or through authctl's flags).
    @Test func neitherAccountsNorAuthctlHaveAVerificationSwitch() throws {
        Self.expectNoDisablingName(
            Self.labels(AccountConfiguration(name: "a", issuer: "https://i", clientID: "c")), in: "AccountConfiguration")
        var authctlFlags: [String] = []
        for file in try Self.swiftFiles(under: "Sources/authctl") + Self.swiftFiles(under: "Sources/AuthctlCommands") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            authctlFlags += text.matches(of: try Regex("\"(--[a-z][a-z-]*)\"")).map { String($0.output[1].substring!) }
        }
        #expect(authctlFlags.contains("--issuer") && authctlFlags.contains("--discovery-url"), "\(Set(authctlFlags))")
        Self.expectNoDisablingName(authctlFlags, in: "authctl")
    }

    /// The client context asks OpenSSL for `SSL_VERIFY_PEER` and nothing in the sources can ask
    /// for less: no `SSL_VERIFY_NONE`, no verification callback that could accept a failure.
    @Test func noSourceCanSwitchOpenSSLPeerVerificationOff() throws {
        var verifyCalls: [String] = []
        for file in try Self.swiftFiles(under: "Sources") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for forbidden in ["SSL_VERIFY_NONE", "set_cert_verify_callback", "X509_STORE_set_verify_cb", "SSL_set_verify_result"]
            {
                #expect(!text.contains(forbidden), "\(file) uses \(forbidden)")
            }
            verifyCalls += text.matches(of: try Regex("SSL(_CTX)?_set_verify\\([^)]*\\)")).map { String($0.output[0].substring!) }
        }
        #expect(verifyCalls == ["SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)"])
    }

    static func parsedOptions() throws -> DaemonOptions {
        guard case .run(let options) = try DaemonOptions.parse([], environment: ["HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/u"])
        else {
            struct NotRun: Error {}
            throw NotRun()
        }
        return options
    }

    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static func swiftFiles(under directory: String) throws -> [String] {
        let base = root + "/" + directory
        let files = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []
        let swift = files.filter { $0.hasSuffix(".swift") }.map { base + "/" + $0 }
        try #require(!swift.isEmpty, "no Swift files under \(base)")
        return swift
    }
}
