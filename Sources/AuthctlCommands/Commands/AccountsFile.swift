import BrokerProtocol
@preconcurrency import Glibc
import SystemCalls
import WireFormats

/// The declarative accounts file of `authctl account apply`: `{"accounts": [CONFIG, …]}`, each
/// CONFIG the account model of `POST /v1/accounts` (docs/api.md, decoded by `AccountConfiguration`
/// itself) except that `client_secret_file` names a file holding the secret (a leading `~/` is the
/// home directory): an inline `client_secret` is refused, because accounts files get committed.
///
/// Everything is checked before anything is sent, and every problem is reported as
/// `FILE:LINE:COLUMN: …` (`JSONSourceMap`): syntax, an unknown key (with the nearest known one — a
/// `"scope"` once went unnoticed), a value of the wrong type, a bad name, a name listed twice.
enum AccountsFile {
    /// One account of the file, with where it starts.
    struct Entry {
        var configuration: AccountConfiguration
        var clientSecretFile: String?
        var position: TextPosition

        var name: String { configuration.name }
    }

    /// `client_secret_file` beside the model's own keys.
    static let clientSecretFileKey = "client_secret_file"
    static let maximumBytes = 1 << 20

    /// Reads `path` (`-`: standard input) and checks every entry; the secret files are read too.
    static func load(_ path: String) throws(UsageError) -> [Entry] {
        let bytes =
            path == "-"
            ? try BoundedFile.read(fd: STDIN_FILENO, limit: maximumBytes, what: "the accounts file on standard input")
            : try BoundedFile.read(path, limit: maximumBytes, what: "the accounts file")
        return try entries(bytes, source: displayName(path), directory: path == "-" ? "." : directoryOf(path))
    }

    /// The directory part of `path` ("." for a bare name).
    static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// The entries of the document `bytes`, read from `source` (for messages).
    /// Secret files are read relative to `directory` (the accounts file's) and only from below it
    /// or the user's authbroker configuration directory (`SecretFileLocation`).
    static func entries(_ bytes: [UInt8], source: String, directory: String = ".") throws(UsageError) -> [Entry] {
        let (document, map): (JSONValue, JSONSourceMap)
        do { (document, map) = try WireJSON.parseMapped(bytes, maximumBytes: maximumBytes) } catch {
            throw problem(error, bytes: bytes, source: source)
        }
        func fail(_ path: [JSONSourceMap.Component], _ message: String) -> UsageError {
            UsageError("\(source):\(map.position(of: path)): \(message)")
        }
        guard case .object(let top) = document, case .array(let items)? = top["accounts"] else {
            if case .object(let top) = document, let key = top.keys.sorted().first(where: { $0 != "accounts" }) {
                throw fail([.name(key)], unknownKeyMessage(key, known: ["accounts"]))
            }
            throw fail([], "not an accounts file: {\"accounts\": [{\"name\": …, \"issuer\": …, \"client_id\": …}, …]}")
        }
        if let key = top.keys.sorted().first(where: { $0 != "accounts" }) {
            throw fail([.name(key)], unknownKeyMessage(key, known: ["accounts"]))
        }
        var seen: [String: TextPosition] = [:]
        var entries: [Entry] = []
        for (index, item) in items.enumerated() {
            let path: [JSONSourceMap.Component] = [.name("accounts"), .index(index)]
            if let (keyPath, key, known) = unknownKey(in: item) {
                throw fail(path + keyPath, unknownKeyMessage(key, known: known))
            }
            let entry: DecodedEntry
            do { entry = try WireJSON.decode(DecodedEntry.self, from: item) } catch {
                if case .mismatch(let at, let reason) = error {
                    let inner = JSONSourceMap.components(of: at)
                    throw fail(path + inner, "\(JSONSourceMap.text(of: path + inner)): \(reason)")
                }
                throw fail(path, "\(error)")
            }
            let name = entry.configuration.name
            if let problem = AccountName.problem(with: name) {
                throw fail(path + [.name("name")], "invalid account name '\(name)': \(problem)")
            }
            if let first = seen[name] { throw fail(path + [.name("name")], "'\(name)' is listed twice (first at \(first))") }
            seen[name] = map.position(of: path)
            guard entry.configuration.clientSecret == nil else {
                throw fail(
                    path + [.name(AccountConfiguration.clientSecretKey)],
                    "account '\(name)' has an inline client_secret; accounts files get committed, so put the secret "
                        + "in a file of its own and name that file with client_secret_file")
            }
            var configuration = entry.configuration
            configuration.clientSecret = try entry.clientSecretFile.map { (file) throws(UsageError) in
                let location: String
                do throws(SecretFileLocation.Refusal) {
                    location = try SecretFileLocation.resolve(expandingHome(file), accountsDirectory: directory)
                } catch {
                    throw fail(path + [.name(clientSecretFileKey)], "account '\(name)': \(error.message(file))")
                }
                return try SecretFile.read(location)
            }
            if configuration.scopes.isEmpty { configuration.scopes = configuration.defaultScopes }
            entries.append(
                Entry(configuration: configuration, clientSecretFile: entry.clientSecretFile, position: map.position(of: path)))
        }
        return entries
    }

    /// The first key (in key order) the file may not use in `entry`: its path below the entry,
    /// the key, and the keys allowed there. `extra_parameters` takes any name.
    static func unknownKey(in entry: JSONValue) -> ([JSONSourceMap.Component], String, Set<String>)? {
        guard case .object(let fields) = entry else { return nil }
        let known = AccountConfiguration.jsonKeys.union([clientSecretFileKey])
        if let key = fields.keys.sorted().first(where: { !known.contains($0) }) { return ([.name(key)], key, known) }
        if case .object(let endpoints)? = fields["endpoints"],
            let key = endpoints.keys.sorted().first(where: { !ManualEndpoints.jsonKeys.contains($0) })
        {
            return ([.name("endpoints"), .name(key)], key, ManualEndpoints.jsonKeys)
        }
        return nil
    }

    static func unknownKeyMessage(_ key: String, known: Set<String>) -> String {
        let shown = "\"" + ShownText.argument(key) + "\""
        guard let nearest = Suggestion.closest(to: key, among: Array(known)) else {
            return "unknown key \(shown) (known: \(known.sorted().joined(separator: ", ")))"
        }
        return "unknown key \(shown); did you mean \"\(nearest)\"?"
    }

    /// A parse error as `FILE:LINE:COLUMN: …`.
    static func problem(_ error: WireJSONError, bytes: [UInt8], source: String) -> UsageError {
        switch error {
        case .syntax(let offset, let reason):
            UsageError("\(source):\(TextPosition(offset: offset, in: bytes)): invalid JSON: \(reason)")
        case .tooDeep(let offset):
            UsageError(
                "\(source):\(TextPosition(offset: offset, in: bytes)): invalid JSON: nested deeper than \(WireJSON.maximumDepth) levels"
            )
        default:
            UsageError("\(source): \(error)")
        }
    }

    /// As decoded: the model, plus the file its client secret is read from.
    struct DecodedEntry: Decodable {
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
        return try read(fd: fd, limit: limit, what: "\(what) '\(path)'")
    }

    /// Reads `fd` to its end (standard input for `apply -`).
    static func read(fd: Int32, limit: Int, what: String) throws(UsageError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= limit {
            let count = SystemCall.retryingInterrupts { Glibc.read(fd, &buffer, buffer.count) }
            if count < 0 { throw UsageError("cannot read \(what): \(Errno.current)") }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        guard bytes.count <= limit else { throw UsageError("\(what) is larger than \(limit) bytes") }
        return bytes
    }
}
