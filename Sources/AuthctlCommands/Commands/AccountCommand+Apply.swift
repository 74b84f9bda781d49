import BrokerProtocol
@preconcurrency import Glibc
import SystemCalls

/// `authctl account apply FILE.json`: make the daemon's accounts match a file.
///
/// Missing accounts are added, changed ones updated (`PUT`, the daemon decides whether the change
/// logs the account out), accounts the file no longer lists are removed. One line per account
/// on stdout: `added NAME`, `updated NAME`, `signed-out NAME`, `removed NAME`, `unchanged NAME`.
extension AccountCommand {
    static func apply(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError("'authctl account apply' needs one FILE.json; see: authctl account --help")
        }
        let desired = try AccountsFile.load(path)
        let existing = try context.client.call(.listAccounts).accounts.map(\.name)
        var report: [String] = []
        for configuration in desired {
            if existing.contains(configuration.name) {
                let result = try context.client.call(
                    .updateAccount(try context.checked(configuration.name)), body: configuration)
                report.append("\(result.outcome == .signedOut ? "signed-out" : result.outcome.rawValue) \(configuration.name)")
            } else {
                _ = try context.client.call(.addAccount, body: configuration)
                report.append("added \(configuration.name)")
            }
        }
        for name in existing where !desired.contains(where: { $0.name == name }) {
            _ = try context.client.call(.removeAccount(try context.checked(name)))
            report.append("removed \(name)")
        }
        if !report.isEmpty { Output.line(report.joined(separator: "\n")) }
        return ExitCode.success
    }
}

/// The declarative accounts file: `{"accounts": [CONFIG, …]}`, each CONFIG with the fields of
/// `POST /v1/accounts` (docs/api.md) except that `client_secret_file` names a file holding the
/// secret (a leading `~/` is the home directory) instead of `client_secret` inline.
enum AccountsFile {
    struct Document: Decodable {
        var accounts: [Entry]
    }

    struct Entry: Decodable {
        var name: String
        var issuer: String
        var clientID: String
        var clientSecretFile: String?
        var scopes: [String]?
        var audience: String?
        var redirectHost: String?
        var redirectPort: Int?
        var redirectPath: String?
        var extraParameters: [String: String]?
        var endpoints: ManualEndpoints?
        var discoveryURL: String?
        var gitURLPrefix: String?
        var gitUsername: String?

        enum CodingKeys: String, CodingKey {
            case name, issuer, scopes, audience, endpoints
            case clientID = "client_id"
            case clientSecretFile = "client_secret_file"
            case redirectHost = "redirect_host"
            case redirectPort = "redirect_port"
            case redirectPath = "redirect_path"
            case extraParameters = "extra_parameters"
            case discoveryURL = "discovery_url"
            case gitURLPrefix = "git_url_prefix"
            case gitUsername = "git_username"
        }
    }

    static func load(_ path: String) throws -> [AccountConfiguration] {
        let bytes = try BoundedFile.read(path, limit: 1 << 20, what: "the accounts file")
        let document: Document
        do { document = try BrokerClient.decodeJSON(bytes, as: Document.self) } catch {
            throw UsageError("'\(path)' is not an accounts file ({\"accounts\": [{\"name\", \"issuer\", \"client_id\", …}]}): \(error)")
        }
        var seen: Set<String> = []
        return try document.accounts.map { entry in
            if let problem = AccountName.problem(with: entry.name) {
                throw UsageError("'\(path)': invalid account name '\(entry.name)': \(problem)")
            }
            guard seen.insert(entry.name).inserted else { throw UsageError("'\(path)' lists '\(entry.name)' twice") }
            return AccountConfiguration(
                name: entry.name, issuer: entry.issuer, clientID: entry.clientID,
                clientSecret: try entry.clientSecretFile.map { try SecretFile.read(expandingHome($0)) },
                scopes: entry.scopes ?? ["openid"], audience: entry.audience, redirectHost: entry.redirectHost,
                redirectPort: entry.redirectPort, redirectPath: entry.redirectPath,
                extraParameters: entry.extraParameters ?? [:], endpoints: entry.endpoints,
                discoveryURL: entry.discoveryURL, gitURLPrefix: entry.gitURLPrefix, gitUsername: entry.gitUsername)
        }
    }

    static func expandingHome(_ path: String) -> String {
        guard path.hasPrefix("~/"), let home = getenv("HOME") else { return path }
        return String(cString: home) + path.dropFirst()
    }
}

/// Reads a whole (small) file, refusing anything over `limit` bytes.
enum BoundedFile {
    static func read(_ path: String, limit: Int, what: String) throws(UsageError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw UsageError("cannot read \(what) '\(path)': \(Errno.current)") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= limit {
            let count = SystemCall.retryingInterrupts { Glibc.read(fd, &buffer, buffer.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        guard bytes.count <= limit else { throw UsageError("\(what) '\(path)' is larger than \(limit) bytes") }
        return bytes
    }
}
