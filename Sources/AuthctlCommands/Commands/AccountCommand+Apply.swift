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
        let code = try ConfirmationPrompt.given(arguments)
        let desired = try AccountsFile.load(path)
        let existing = try context.client.call(.listAccounts).accounts.map(\.name)
        var report: [String] = []
        for configuration in desired {
            if existing.contains(configuration.name) {
                let result = try update(configuration, code: code, context)
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

/// The declarative accounts file: `{"accounts": [CONFIG, …]}`, each CONFIG the account model of
/// `POST /v1/accounts` (docs/api.md, decoded by `AccountConfiguration` itself) except that
/// `client_secret_file` names a file holding the secret (a leading `~/` is the home directory):
/// an inline `client_secret` is refused, because accounts files get committed.
enum AccountsFile {
    struct Document: Decodable {
        var accounts: [Entry]
    }

    /// One account: the model, plus the file its client secret is read from.
    struct Entry: Decodable {
        var configuration: AccountConfiguration
        var clientSecretFile: String?

        enum CodingKeys: String, CodingKey {
            case clientSecretFile = "client_secret_file"
        }

        init(from decoder: any Decoder) throws {
            configuration = try AccountConfiguration(from: decoder)
            clientSecretFile = try decoder.container(keyedBy: CodingKeys.self)
                .decodeIfPresent(String.self, forKey: .clientSecretFile)
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
            var configuration = entry.configuration
            let name = configuration.name
            if let problem = AccountName.problem(with: name) {
                throw UsageError("'\(path)': invalid account name '\(name)': \(problem)")
            }
            guard seen.insert(name).inserted else { throw UsageError("'\(path)' lists '\(name)' twice") }
            guard configuration.clientSecret == nil else {
                throw UsageError(
                    "'\(path)': account '\(name)' has an inline client_secret; accounts files get committed, so put "
                        + "the secret in a file of its own and name that file with client_secret_file")
            }
            configuration.clientSecret = try entry.clientSecretFile.map { try SecretFile.read(expandingHome($0)) }
            if configuration.scopes.isEmpty { configuration.scopes = ["openid"] }
            return configuration
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
