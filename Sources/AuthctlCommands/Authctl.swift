import BrokerProtocol
@preconcurrency import Glibc

enum Authctl {
    static func main(_ arguments: [String], environment: [String: String]) -> Int32 {
        do {
            let global = try CommandLineArguments(
                arguments, command: "authctl", options: [.value("--socket"), .flag("--help"), .flag("-h"), .flag("--version")],
                stopAtFirstPositional: true)
            if global.has("--version") { return try VersionCommand.run(global, context: context(global, environment)) }
            guard let name = global.positionals.first, !global.has("--help"), !global.has("-h") else {
                Output.line(HelpCommand.overviewText())
                return global.positionals.isEmpty && !global.has("--help") && !global.has("-h") ? ExitCode.usage : ExitCode.success
            }
            guard let found = command(named: name) else {
                throw UsageError("unknown command '\(name)'; see: authctl help")
            }
            let rest = Array(global.positionals.dropFirst())
            // `--help` after `--` belongs to the program `authctl exec` runs, not to authctl.
            let own = rest.prefix { $0 != "--" }
            if own.contains("--help") || own.contains("-h") {
                Output.line(found.help)
                return ExitCode.success
            }
            let parsed = try CommandLineArguments(
                rest, command: "authctl \(name)", options: found.options,
                stopAtFirstPositional: found == AccountCommand.self)
            return try found.run(parsed, context: context(global, environment))
        } catch let error as UsageError {
            Output.error(error.message)
            return ExitCode.usage
        } catch let error as BrokerClientError {
            Output.error(error.description)
            return error.exitCode
        } catch {
            Output.error("\(error)")
            return ExitCode.failure
        }
    }

    static func context(_ global: CommandLineArguments, _ environment: [String: String]) -> CommandContext {
        CommandContext(
            socketPath: SocketPath.resolve(flag: global.value("--socket"), environment: environment),
            environment: environment)
    }

    /// The environment variables authctl reads. Looked up one by one with getenv rather than by
    /// copying all of `environ` into a dictionary: start-up is most of `authctl token`'s time.
    static let environmentNames = ["AUTHBROKER_SOCKET", "XDG_RUNTIME_DIR", "TMPDIR", "DISPLAY", "WAYLAND_DISPLAY"]

    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        for name in environmentNames {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }
}
