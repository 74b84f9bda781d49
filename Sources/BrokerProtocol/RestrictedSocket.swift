/// Body of `POST /v1/sockets`: an extra socket that serves only `GET /v1/ping` and the token of
/// the listed accounts (for an SSH forward or a container; docs/remote.md).
///
/// The grant is the list of account names and the narrowed tokens it may serve besides their plain
/// tokens (`narrowings`, each in `TokenNarrowing(spec:)`'s form; none by default).
public struct RestrictedSocketRequest: Codable, Sendable, Equatable {
    public var name: String
    public var accounts: [String]
    /// Seconds until the socket is removed; nil: until `socket remove` or the daemon stops.
    public var ttlSeconds: Int?
    /// Stored in the vault and recreated when the daemon starts (the ttl stays an absolute expiry).
    public var persist: Bool
    /// The narrowed tokens the socket also serves (`scope=openid resource=https://api.example.com/`);
    /// nil or empty: only plain tokens. Each still needs the account's own allow-lists.
    public var narrowings: [String]?

    public init(name: String, accounts: [String], ttlSeconds: Int? = nil, persist: Bool = false, narrowings: [String]? = nil) {
        self.name = name
        self.accounts = accounts
        self.ttlSeconds = ttlSeconds
        self.persist = persist
        self.narrowings = narrowings
    }

    enum CodingKeys: String, CodingKey {
        case name, accounts, persist, narrowings
        case ttlSeconds = "ttl_seconds"
    }

    /// At most this many named narrowings per socket.
    public static let maximumNarrowings = 16

    /// The narrowings, parsed and normalised; throws the first that is not one.
    public func parsedNarrowings() throws(NarrowingError) -> [TokenNarrowing] {
        var parsed: [TokenNarrowing] = []
        for spec in narrowings ?? [] {
            let narrowing = try TokenNarrowing(spec: spec)
            if !parsed.contains(narrowing) { parsed.append(narrowing) }
        }
        return parsed
    }

    /// The longest ttl (30 days): a forgotten forward should not live for ever.
    public static let ttlRange = 1...2_592_000
    /// Enough for any real use, small enough to bound the grant.
    public static let maximumAccounts = 64

    /// nil when the request may be served, else the reason (said to the user as is).
    public var problem: String? {
        if let problem = RestrictedSocketName.problem(with: name) { return problem }
        guard !accounts.isEmpty, accounts.count <= Self.maximumAccounts else {
            return "a restricted socket serves 1 to \(Self.maximumAccounts) accounts; name them with --account"
        }
        if let bad = accounts.lazy.compactMap(AccountName.problem(with:)).first { return bad }
        if let ttlSeconds, !Self.ttlRange.contains(ttlSeconds) {
            return "the ttl must be 1 second to 30 days"
        }
        if (narrowings?.count ?? 0) > Self.maximumNarrowings {
            return "a restricted socket names at most \(Self.maximumNarrowings) narrowings"
        }
        do throws(NarrowingError) {
            _ = try parsedNarrowings()
        } catch {
            return "--narrowing: \(error)"
        }
        return nil
    }
}

/// One restricted socket, as `GET /v1/sockets` and `POST /v1/sockets` answer it.
public struct RestrictedSocketInfo: Codable, Sendable, Equatable {
    public var name: String
    /// Where the socket file is (`$XDG_RUNTIME_DIR/authbroker/restricted/UID/NAME.sock`).
    public var path: String
    public var accounts: [String]
    /// RFC 3339 UTC; nil: no ttl.
    public var expiresAt: String?
    public var persist: Bool
    /// The narrowed tokens it serves besides plain ones (`TokenNarrowing(spec:)`'s form); nil: none.
    public var narrowings: [String]?

    public init(name: String, path: String, accounts: [String], expiresAt: String?, persist: Bool, narrowings: [String]? = nil) {
        self.name = name
        self.path = path
        self.accounts = accounts
        self.expiresAt = expiresAt
        self.persist = persist
        self.narrowings = narrowings
    }

    enum CodingKeys: String, CodingKey {
        case name, path, accounts, persist, narrowings
        case expiresAt = "expires_at"
    }
}

/// The answer to `GET /v1/sockets`.
public struct RestrictedSocketList: Codable, Sendable, Equatable {
    public var sockets: [RestrictedSocketInfo]

    public init(sockets: [RestrictedSocketInfo]) { self.sockets = sockets }
}

/// Restricted socket names (per owner): the file is `restricted/UID/NAME.sock` below the main
/// socket's directory, so the charset is strict (no '/', no dot files); `main` and `authbroker`
/// (the main socket's names) are taken.
public enum RestrictedSocketName {
    public static let maximumLength = 32
    /// The name the main socket is called by in audit lines (`socket=main`).
    public static let main = "main"

    /// nil when `name` is acceptable, else the reason.
    public static func problem(with name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= maximumLength else {
            return "socket names are 1 to \(maximumLength) characters"
        }
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) || byte == 45 || byte == 95
        }
        guard allowed, let first = name.utf8.first, first != 45, first != 95 else {
            return "socket names use lower-case letters, digits, '-' and '_', and start with a letter or digit"
        }
        guard name != main, name != "authbroker" else { return "'\(name)' is reserved; choose another socket name" }
        return nil
    }

    /// The socket file's name in the runtime directory.
    public static func fileName(_ name: String) -> String { name + ".sock" }
}
