import BrokerProtocol
import WireFormats

/// What every command needs: where the daemon is and how to talk to it.
struct CommandContext {
    let socketPath: String
    let environment: [String: String]

    var client: BrokerClient { BrokerClient(socketPath: socketPath) }

    /// The account name, refusing names the daemon would refuse anyway: a usage error (exit 64)
    /// before any connection, not an error from the client.
    func checked(_ name: String) throws(UsageError) -> String {
        if let problem = AccountName.problem(with: name) {
            throw UsageError("invalid account name '\(ShownText.argument(name))': \(problem)")
        }
        return name
    }

    static func json<T: Encodable>(_ value: T) -> String {
        (try? String(decoding: WireJSON.encode(value, pretty: true), as: UTF8.self)) ?? "{}"
    }
}

/// Exactly one positional argument, the account name, or a usage error.
func requireAccountName(_ arguments: CommandLineArguments, command: String) throws(UsageError) -> String {
    guard arguments.positionals.count == 1 else {
        throw UsageError(
            arguments.positionals.isEmpty
                ? "'\(command)' needs an account name; see: \(command) --help"
                : "'\(command)' takes one account name, got \(arguments.positionals.count) arguments")
    }
    return arguments.positionals[0]
}
