import WireFormats

/// The one model of an account's configuration: what `authctl account add` sends (`POST /v1/accounts`,
/// `PUT /v1/accounts/{name}`), what an accounts file lists, what the vault stores (as a versioned
/// document of these same keys, see BrokerStore's `AccountDocument`) and what the broker uses.
/// A new field is added here, with its JSON key, and nowhere else but its CLI flag and the docs.
/// The client secret travels only in requests and is sealed by the daemon; it is never returned.
public struct AccountConfiguration: Codable, Sendable, Equatable {
    public var name: String
    public var issuer: String
    public var clientID: String
    public var clientSecret: String?
    public var scopes: [String]
    public var audience: String?
    public var redirectHost: String?
    public var redirectPort: Int?
    public var redirectPath: String?
    /// A private-use URI scheme redirect (RFC 8252 §7.1, e.g. `shop.4242.app://callback`) instead of
    /// the loopback listener; `PrivateUseRedirectURI` says which are accepted.
    public var redirectURI: String?
    public var extraParameters: [String: String]
    public var endpoints: ManualEndpoints?
    /// Where to fetch the discovery document when it is not under the issuer (Shopify: the shop's
    /// domain). The document's `issuer` must still equal `issuer`.
    public var discoveryURL: String?
    /// `authctl git-credential` answers for remote URLs starting with this prefix
    /// (`https://git.example.com/` or `https://git.example.com/team/`).
    public var gitURLPrefix: String?
    /// The username `git-credential` answers with (default `oauth2`).
    public var gitUsername: String?
    /// How token requests (code exchange, refresh) are encoded; nil is `form` (RFC 6749).
    public var tokenRequestFormat: TokenRequestFormat?
    /// The command `authctl login` opens this account's authorization URL with (a work or personal
    /// browser profile); `BrowserCommand` says the syntax. Run by authctl as the user, never by the daemon.
    public var browser: String?
    /// `--pin-sha256`: keys (`PublicKeyPin`) one of which every provider endpoint's verified
    /// certificate chain must carry, besides normal verification; nil or empty: no pinning.
    public var pinSHA256: [String]?
    /// `--tenant-allow`: for a multi-tenant Microsoft Entra issuer (`…/common/v2.0`,
    /// `organizations`, `consumers`), the tenant ids (lowercase GUIDs) whose users may log in;
    /// nil or empty: any tenant. Part of the security profile: changing it signs the account out.
    public var tenantAllow: [String]?
    /// How the client secret is sent (`TokenEndpointAuthMethod`); nil: chosen from the metadata.
    public var tokenEndpointAuthMethod: TokenEndpointAuthMethod?
    /// `--par`: pushed authorization requests (RFC 9126) for browser logins; nil is `auto`.
    public var pushedAuthorization: PushedAuthorizationMode?
    /// `--dpop`: sender-constrained tokens (RFC 9449): each login makes a P-256 key, kept sealed in
    /// the vault, that signs a proof for every token-endpoint call; nil or false: Bearer tokens.
    public var dpop: Bool?
    /// `--allow-exe`: only callers whose executable (`/proc/PID/exe`) is one of these absolute paths
    /// get this account's tokens (`CallerExecutable`); nil or empty: any caller of the owner.
    public var allowExe: [String]?
    /// `--confirm`: each caller executable must be approved once per daemon boot (`authctl approve`)
    /// before it gets this account's tokens; nil or false: no approval asked.
    public var confirmCallers: Bool?
    /// `--allow-narrowing`: narrowed tokens (`authctl token --scope/--resource/--audience`) are
    /// minted by refreshing with a narrower request, which spends the account's refresh token. True
    /// when the user (or a preset whose provider keeps the original grant, RFC 6749 §6) declares the
    /// provider safe for that; nil or false: narrowed requests are refused (`scope_narrowing_unsafe`).
    public var allowNarrowing: Bool?
    /// `--allow-other-namespaces`: with a caller policy, serve callers in another mount or user
    /// namespace than the daemon's (a container, `unshare`); their executable is still identified
    /// by its file (device and inode). nil or false: such callers cannot be identified and are refused.
    public var allowOtherNamespaces: Bool?
    /// `--allow-resource`: the resources (RFC 8707, exact URIs) callers may ask narrowed tokens for
    /// (`token --resource`; on Entra the scope `RESOURCE/.default`); nil or empty: none.
    public var narrowResources: [String]?
    /// `--allow-audience`: the audiences callers may ask narrowed tokens for (`token --audience`);
    /// nil or empty: none.
    public var narrowAudiences: [String]?
    /// `--resource-url`: the protected resource (an MCP server) this account's tokens are for, as its
    /// canonical URI (RFC 8707 §2, MCP "canonical server URI": lower-case scheme and host, no
    /// fragment, https or loopback http). Sent as `resource` on the authorization request (and
    /// PAR), the code exchange and every refresh unless `sendResource` is false.
    public var resourceURL: String?
    /// `--no-resource-parameter` stores false: the resource URL is kept but no `resource` parameter
    /// is sent (Microsoft Entra v2 refuses it). Nil or true: sent when there is a resource URL.
    public var sendResource: Bool?
    /// `--client-metadata-url`: a Client ID Metadata Document (its URL is the client id), used when
    /// the authorization server advertises `client_id_metadata_document_supported`.
    public var clientMetadataURL: String?
    /// How the client id was obtained, set by the daemon when it adds an account of a resource
    /// (`ClientRegistrationKind`); nil: configured by the user (pre-registered).
    public var clientRegistration: ClientRegistrationKind?

    public init(
        name: String, issuer: String, clientID: String, clientSecret: String? = nil, scopes: [String] = [],
        audience: String? = nil, redirectHost: String? = nil, redirectPort: Int? = nil, redirectPath: String? = nil,
        redirectURI: String? = nil, extraParameters: [String: String] = [:], endpoints: ManualEndpoints? = nil,
        discoveryURL: String? = nil, gitURLPrefix: String? = nil, gitUsername: String? = nil,
        tokenRequestFormat: TokenRequestFormat? = nil, browser: String? = nil, pinSHA256: [String]? = nil,
        tenantAllow: [String]? = nil, tokenEndpointAuthMethod: TokenEndpointAuthMethod? = nil,
        pushedAuthorization: PushedAuthorizationMode? = nil, dpop: Bool? = nil, allowExe: [String]? = nil,
        confirmCallers: Bool? = nil, allowNarrowing: Bool? = nil, allowOtherNamespaces: Bool? = nil,
        narrowResources: [String]? = nil, narrowAudiences: [String]? = nil, resourceURL: String? = nil,
        sendResource: Bool? = nil, clientMetadataURL: String? = nil, clientRegistration: ClientRegistrationKind? = nil
    ) {
        self.name = name
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.audience = audience
        self.redirectHost = redirectHost
        self.redirectPort = redirectPort
        self.redirectPath = redirectPath
        self.redirectURI = redirectURI
        self.extraParameters = extraParameters
        self.endpoints = endpoints
        self.discoveryURL = discoveryURL
        self.gitURLPrefix = gitURLPrefix
        self.gitUsername = gitUsername
        self.tokenRequestFormat = tokenRequestFormat
        self.browser = browser
        self.pinSHA256 = pinSHA256
        self.tenantAllow = tenantAllow
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.pushedAuthorization = pushedAuthorization
        self.dpop = dpop
        self.allowExe = allowExe
        self.confirmCallers = confirmCallers
        self.allowNarrowing = allowNarrowing
        self.allowOtherNamespaces = allowOtherNamespaces
        self.narrowResources = narrowResources
        self.narrowAudiences = narrowAudiences
        self.resourceURL = resourceURL
        self.sendResource = sendResource
        self.clientMetadataURL = clientMetadataURL
        self.clientRegistration = clientRegistration
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, issuer, scopes, audience, endpoints
        case discoveryURL = "discovery_url"
        case gitURLPrefix = "git_url_prefix"
        case gitUsername = "git_username"
        case tokenRequestFormat = "token_request_format"
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case redirectHost = "redirect_host"
        case redirectPort = "redirect_port"
        case redirectPath = "redirect_path"
        case redirectURI = "redirect_uri"
        case extraParameters = "extra_parameters"
        case browser
        case pinSHA256 = "pin_sha256"
        case tenantAllow = "tenant_allow"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case pushedAuthorization = "par"
        case dpop
        case allowExe = "allow_exe"
        case confirmCallers = "confirm_callers"
        case allowNarrowing = "allow_narrowing"
        case allowOtherNamespaces = "allow_other_namespaces"
        case narrowResources = "narrow_resources"
        case narrowAudiences = "narrow_audiences"
        case resourceURL = "resource_url"
        case sendResource = "send_resource"
        case clientMetadataURL = "client_metadata_url"
        case clientRegistration = "client_registration"
    }

    /// Only `name`, `issuer` and `client_id` are required (docs/api.md): `curl` users need not
    /// spell out empty `scopes` or `extra_parameters`. With `resource_url` the issuer and the client
    /// id may be left out: the daemon discovers the one and obtains the other (empty until then).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let resourceURL = try container.decodeIfPresent(String.self, forKey: .resourceURL)
        func required(_ key: CodingKeys) throws -> String {
            if resourceURL != nil { return try container.decodeIfPresent(String.self, forKey: key) ?? "" }
            return try container.decode(String.self, forKey: key)
        }
        self.init(
            name: try container.decode(String.self, forKey: .name),
            issuer: try required(.issuer),
            clientID: try required(.clientID),
            clientSecret: try container.decodeIfPresent(String.self, forKey: .clientSecret),
            scopes: try container.decodeIfPresent([String].self, forKey: .scopes) ?? [],
            audience: try container.decodeIfPresent(String.self, forKey: .audience),
            redirectHost: try container.decodeIfPresent(String.self, forKey: .redirectHost),
            redirectPort: try container.decodeIfPresent(Int.self, forKey: .redirectPort),
            redirectPath: try container.decodeIfPresent(String.self, forKey: .redirectPath),
            redirectURI: try container.decodeIfPresent(String.self, forKey: .redirectURI),
            extraParameters: try container.decodeIfPresent([String: String].self, forKey: .extraParameters) ?? [:],
            endpoints: try container.decodeIfPresent(ManualEndpoints.self, forKey: .endpoints),
            discoveryURL: try container.decodeIfPresent(String.self, forKey: .discoveryURL),
            gitURLPrefix: try container.decodeIfPresent(String.self, forKey: .gitURLPrefix),
            gitUsername: try container.decodeIfPresent(String.self, forKey: .gitUsername),
            tokenRequestFormat: try container.decodeIfPresent(TokenRequestFormat.self, forKey: .tokenRequestFormat),
            browser: try container.decodeIfPresent(String.self, forKey: .browser),
            pinSHA256: try container.decodeIfPresent([String].self, forKey: .pinSHA256),
            tenantAllow: try container.decodeIfPresent([String].self, forKey: .tenantAllow),
            tokenEndpointAuthMethod: try container.decodeIfPresent(
                TokenEndpointAuthMethod.self, forKey: .tokenEndpointAuthMethod),
            pushedAuthorization: try container.decodeIfPresent(PushedAuthorizationMode.self, forKey: .pushedAuthorization),
            dpop: try container.decodeIfPresent(Bool.self, forKey: .dpop),
            allowExe: try container.decodeIfPresent([String].self, forKey: .allowExe),
            confirmCallers: try container.decodeIfPresent(Bool.self, forKey: .confirmCallers),
            allowNarrowing: try container.decodeIfPresent(Bool.self, forKey: .allowNarrowing),
            allowOtherNamespaces: try container.decodeIfPresent(Bool.self, forKey: .allowOtherNamespaces),
            narrowResources: try container.decodeIfPresent([String].self, forKey: .narrowResources),
            narrowAudiences: try container.decodeIfPresent([String].self, forKey: .narrowAudiences),
            resourceURL: resourceURL,
            sendResource: try container.decodeIfPresent(Bool.self, forKey: .sendResource),
            clientMetadataURL: try container.decodeIfPresent(String.self, forKey: .clientMetadataURL),
            clientRegistration: try container.decodeIfPresent(ClientRegistrationKind.self, forKey: .clientRegistration))
    }
}

extension AccountConfiguration {
    /// Every JSON key of the model, whether or not a value encodes it (derived from `CodingKeys`).
    public static let jsonKeys: Set<String> = Set(CodingKeys.allCases.map(\.stringValue))

    /// The key of the one field that is never stored in documents or returned to clients.
    public static let clientSecretKey = CodingKeys.clientSecret.stringValue

    /// As kept in memory, stored and returned to clients: no client secret, empty manual endpoints
    /// as none (so a re-applied file compares equal to what the daemon kept).
    public var withoutSecret: Self {
        var copy = self
        copy.clientSecret = nil
        copy.endpoints = endpoints.flatMap { $0.isEmpty ? nil : $0 }
        return copy
    }
}

// The client secret is a plain String here (authctl links no crypto), so printing the model must
// not show it: logs and test failures print configurations. Derived from the JSON encoding, so no
// field list is restated.
extension AccountConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        guard case .object(var fields)? = try? WireJSON.encodeValue(withoutSecret) else {
            return "AccountConfiguration(\(name))"
        }
        if clientSecret != nil { fields[Self.clientSecretKey] = .string("<redacted>") }
        return "AccountConfiguration" + String(decoding: WireJSON.serialize(.object(fields)), as: UTF8.self)
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror { Mirror(self, children: ["configuration": description]) }
}
