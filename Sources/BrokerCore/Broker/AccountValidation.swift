import BrokerProtocol

/// Checks an account configuration at the edge, before anything is stored or fetched.
enum AccountValidation {
    static let redirectHosts: [String: RedirectURI.Host] = [
        "127.0.0.1": .ipv4, "localhost": .localhost, "::1": .ipv6, "[::1]": .ipv6,
    ]

    static func check(_ input: AccountConfiguration) -> Result<AccountConfiguration, WireError> {
        func invalid(_ message: String) -> Result<AccountConfiguration, WireError> {
            .failure(WireError(code: .invalidRequest, message: message))
        }
        var configuration = input
        if let problem = AccountName.problem(with: input.name) { return invalid("Invalid account name: \(problem).") }
        do throws(OIDCError) {
            try Discovery.checkIssuer(input.issuer)
            for (what, url) in input.endpoints?.configured ?? [] { _ = try EndpointURL.secure(url, what: what) }
            if let url = input.discoveryURL { _ = try EndpointURL.secure(url, what: "discovery_url") }
            // Stored canonical: it is sent as `resource` and compared with the resource's metadata.
            if let resource = input.resourceURL { configuration.resourceURL = try EndpointURL.canonicalResource(resource).string }
            // The CIMD draft: an https URL with a path (loopback http for tests, as everywhere).
            if let document = input.clientMetadataURL,
                try EndpointURL.secure(document, what: "client_metadata_url").path.count < 2
            {
                throw OIDCError.invalidConfiguration("client_metadata_url must name a document (a URL with a path)")
            }
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
        if let browser = input.browser, let problem = BrowserCommand.problem(with: browser) {
            // authctl runs it with `sh -c`: a line break would add a second command line.
            return invalid("The browser command is invalid: \(problem).")
        }
        if let pins = input.pinSHA256, let problem = PublicKeyPin.problem(with: pins) {
            return invalid("--pin-sha256: \(problem).")
        }
        if let tenants = input.tenantAllow, !tenants.isEmpty {
            if let problem = TenantID.problem(with: tenants) { return invalid("--tenant-allow: \(problem).") }
            // Any other issuer names one tenant or none: the list would silently check nothing useful.
            guard EntraIssuer.template(forConfigured: input.issuer) != nil else {
                return invalid(
                    "--tenant-allow needs a multi-tenant Microsoft Entra issuer "
                        + "(https://login.microsoftonline.com/common/v2.0, organizations or consumers).")
            }
        }
        if let executables = input.allowExe, let problem = CallerExecutable.problem(with: executables) {
            return invalid("--allow-exe: \(problem).")
        }
        // Each listed resource and audience must be one a caller could ask for (`TokenNarrowing`'s rules).
        for resource in input.narrowResources ?? [] {
            do throws(NarrowingError) {
                _ = try TokenNarrowing(scopes: [], resources: [resource], audience: nil)
            } catch {
                return invalid("--allow-resource: \(error)")
            }
        }
        for audience in input.narrowAudiences ?? [] {
            do throws(NarrowingError) {
                _ = try TokenNarrowing(scopes: [], resources: [], audience: audience)
            } catch {
                return invalid("--allow-audience: \(error)")
            }
        }
        if configuration.scopes.isEmpty { configuration.scopes = configuration.defaultScopes }
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
        if let problem = redirectURIProblem(input) { return invalid(problem) }
        for key in input.extraParameters.keys {
            guard isPlainText(key), !AuthorizationRequest.reservedParameters.contains(key) else {
                return invalid("The parameter '\(key)' is set by authbroker itself and cannot be configured.")
            }
        }
        return .success(configuration)
    }

    /// A private-use scheme redirect replaces the loopback listener: combining it with the
    /// listener's options would leave one of them silently unused.
    private static func redirectURIProblem(_ input: AccountConfiguration) -> String? {
        guard let uri = input.redirectURI else { return nil }
        if input.redirectHost != nil || input.redirectPort != nil || input.redirectPath != nil {
            return "--redirect-uri replaces the loopback redirect: drop --redirect-host, --redirect-port and --redirect-path."
        }
        do throws(PrivateUseRedirectURI.Problem) {
            _ = try PrivateUseRedirectURI(parsing: uri)
            return nil
        } catch {
            return error.description
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func isPlainText(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }
    }
}
