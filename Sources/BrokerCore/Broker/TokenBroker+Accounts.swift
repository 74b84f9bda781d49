import BrokerCrypto
import BrokerProtocol
import BrokerStore
import FoundationEssentials

// Accounts: listing, adding (with discovery), removing. Each caller sees only the accounts it owns.
extension TokenBroker {
    public func status(owner: UInt32) async -> AccountList {
        owned(by: owner, configuration: false)
    }

    public func accounts(owner: UInt32) async -> AccountList {
        owned(by: owner, configuration: true)
    }

    /// `owner`'s accounts by name, unreadable ones included.
    private func owned(by owner: UInt32, configuration: Bool) -> AccountList {
        let usable = accounts.values.filter { $0.owner == owner }.map { accountStatus($0, configuration: configuration) }
        let unreadable = unreadableAccounts.values.filter { $0.key.owner == owner }.map(\.status)
        return AccountList(accounts: (usable + unreadable).sorted { $0.name < $1.name })
    }

    /// Every owner's accounts (the daemon's status line; never answered to a client).
    public var accountCount: Int { accounts.count + unreadableAccounts.count }

    public func account(_ key: AccountKey) async throws(WireError) -> AccountStatus {
        if let unreadable = unreadableAccounts[key] { return unreadable.status }
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        return accountStatus(runtime, configuration: true)
    }

    func accountStatus(_ runtime: AccountRuntime, configuration: Bool) -> AccountStatus {
        let machine = runtime.machine
        let expiry = machine.currentTokens.flatMap { options.refreshPolicy.effectiveExpiry(of: $0) }
        return AccountStatus(
            name: runtime.name, state: machine.wireState(now: now()),
            expiresAt: expiry.map { RFC3339.format(unixSeconds: $0) },
            lastRefresh: machine.lastRefreshAt.map { RFC3339.format(unixSeconds: $0) }, lastError: machine.lastError,
            subject: runtime.subject, configuration: configuration ? runtime.configuration : nil)
    }

    /// Validates the configuration, runs discovery (unless endpoints are given manually), stores the
    /// account (client secret sealed) as `owner`'s, and its metadata.
    public func addAccount(_ configuration: BrokerProtocol.AccountConfiguration, owner: UInt32) async throws(WireError)
        -> AccountStatus
    {
        let configuration = try AccountValidation.check(configuration).get()
        let key = AccountKey(owner: owner, name: configuration.name)
        guard accounts[key] == nil else { throw conflict(key.name) }
        let metadata = try await resolveMetadata(for: configuration)
        let stored: Account
        do {
            let time = now()
            stored = try await worker.perform { vault in try vault.addAccount(configuration, owner: owner, now: time) }
        } catch StoreError.duplicateAccount {
            throw conflict(key.name)
        } catch {
            logger.with(key).error("cannot store the account: \(error)")
            throw fail(WireError(code: .internal, message: "The account could not be stored: \(error)"))
        }
        var runtime = makeRuntime(
            stored, configuration: configuration.withoutSecret, secret: configuration.clientSecret.map { Secret($0) },
            document: nil)
        runtime.metadata = metadata
        runtime.client = configuration.clientConfiguration(secret: runtime.clientSecret, metadata: metadata.metadata)
        accounts[key] = runtime
        if configuration.manualMetadata == nil { adopt(metadata, for: configuration) }
        event(key) { machine, now in machine.restored(nil, now: now) }
        logger.with(key).info("account added", ["issuer": configuration.issuer])
        return accountStatus(accounts[key]!, configuration: true)
    }

    /// The provider metadata a new or changed configuration will use: its manual endpoints
    /// (validated), else discovery — from `discovery_url` when set. Refusals name the issuer.
    func resolveMetadata(for configuration: BrokerProtocol.AccountConfiguration) async throws(WireError)
        -> CachedProviderMetadata
    {
        do throws(OIDCError) {
            if let manual = configuration.manualMetadata {
                try manual.validate(expectedIssuer: configuration.issuer)
                return CachedProviderMetadata(metadata: manual, documentURL: nil, fetchedAt: Date(timeIntervalSince1970: now()))
            }
            // Called by socket requests: fetch and decode off their connection thread.
            let (oidc, issuer, source) = (oidc, configuration.issuer, configuration.providerSource)
            return try await ProviderTask.run { () async throws(OIDCError) in
                try await oidc.discover(issuer: issuer, source: source).cached
            }.get()
        } catch {
            throw fail(WireError(
                code: .invalidRequest, message: "Cannot use issuer '\(configuration.issuer)': \(error.description)"))
        }
    }

    /// Logs out (best effort: revocation failures do not stop the removal), then forgets the account.
    public func removeAccount(_ key: AccountKey) async throws(WireError) {
        if unreadableAccounts[key] != nil { return try await removeUnreadable(key) }
        guard accounts[key] != nil else { throw unknownAccount(key) }
        _ = try? await logout(account: key)
        guard let id = accounts[key]?.id else { return }  // removed meanwhile by another call
        try await deleteStoredAccount(key)
        guard accounts[key]?.id == id else { return }
        accounts[key] = nil
        wakeUps[key] = nil
        sync(key, now: now())
        logger.with(key).info("account removed")
    }

    private func conflict(_ name: String) -> WireError {
        fail(WireError(
            code: .conflict, message: "An account named '\(name)' already exists. Remove it first: authctl account remove \(name)"))
    }
}

/// Checks an account configuration at the edge, before anything is stored or fetched.
enum AccountValidation {
    static let redirectHosts: [String: RedirectURI.Host] = [
        "127.0.0.1": .ipv4, "localhost": .localhost, "::1": .ipv6, "[::1]": .ipv6,
    ]

    static func check(_ input: BrokerProtocol.AccountConfiguration) -> Result<BrokerProtocol.AccountConfiguration, WireError> {
        func invalid(_ message: String) -> Result<BrokerProtocol.AccountConfiguration, WireError> {
            .failure(WireError(code: .invalidRequest, message: message))
        }
        var configuration = input
        if let problem = AccountName.problem(with: input.name) { return invalid("Invalid account name: \(problem).") }
        do throws(OIDCError) {
            try Discovery.checkIssuer(input.issuer)
            for (what, url) in input.endpoints?.configured ?? [] { _ = try EndpointURL.secure(url, what: what) }
            if let url = input.discoveryURL { _ = try EndpointURL.secure(url, what: "discovery_url") }
            if let prefix = input.gitURLPrefix {
                let url = try EndpointURL.secure(prefix, what: "git_url_prefix")
                // git sends no query; a prefix with one could never match.
                guard url.query == nil else { throw OIDCError.invalidConfiguration("git_url_prefix must not contain a query") }
            }
        } catch {
            return invalid("Invalid configuration for '\(input.name)': \(error.description)")
        }
        if let endpoints = input.endpoints, !endpoints.isEmpty, endpoints.authorization == nil || endpoints.token == nil {
            return invalid("Manual endpoints need both --authorization-endpoint and --token-endpoint.")
        }
        guard isPlainText(input.clientID) else { return invalid("The client id must be non-empty printable text.") }
        if let secret = input.clientSecret, secret.isEmpty { return invalid("The client secret file is empty.") }
        if let username = input.gitUsername, username.isEmpty || username.unicodeScalars.contains(where: isControl) {
            // It becomes a `username=` line of git's credential protocol: a newline would inject another key.
            return invalid("The git username must be non-empty and contain no control characters.")
        }
        if configuration.scopes.isEmpty { configuration.scopes = ["openid"] }
        guard configuration.scopes.allSatisfy({ isPlainText($0) && !$0.contains(" ") }) else {
            return invalid("Scopes must be printable words without spaces.")
        }
        if let host = input.redirectHost, redirectHosts[host] == nil {
            return invalid("The redirect host must be 127.0.0.1, localhost or ::1 (got '\(host)').")
        }
        if let port = input.redirectPort, !(1...65535).contains(port) {
            return invalid("The redirect port must be between 1 and 65535 (got \(port)).")
        }
        if let path = input.redirectPath, (try? RedirectURI(port: 1, path: path)) == nil {
            return invalid("The redirect path must start with '/' and contain no query, fragment or spaces.")
        }
        for key in input.extraParameters.keys {
            guard isPlainText(key), !AuthorizationRequest.reservedParameters.contains(key) else {
                return invalid("The parameter '\(key)' is set by authbroker itself and cannot be configured.")
            }
        }
        return .success(configuration)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func isPlainText(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }
    }
}
