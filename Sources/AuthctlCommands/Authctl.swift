import BrokerProtocol
@preconcurrency import Glibc

/// authctl's entry (main.swift): parse, run the command, map failures to exit codes.
package enum Authctl {
    package static func main(_ arguments: [String], environment: [String: String]) -> Int32 {
        do {
            switch try Invocation(arguments) {
            case .overview(let exitCode):
                // `authctl` alone is a usage error: the overview goes where errors go, not into a pipe.
                if exitCode == ExitCode.success {
                    Output.line(HelpCommand.overviewText())
                } else {
                    Output.note(HelpCommand.overviewText())
                }
                return exitCode
            case .help(let command):
                Output.line(command.help)
                return ExitCode.success
            case .version(let global):
                return try VersionCommand.run(global, context: context(global, environment))
            case .run(let command, let arguments, let global):
                return try command.run(arguments, context: context(global, environment))
            }
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
    /// HOME and the XDG_* directories: where `login` registers a private-use scheme handler;
    /// AUTHBROKER_BROWSER and BROWSER: what it opens the URL with.
    static let environmentNames = [
        "AUTHBROKER_SOCKET", "XDG_RUNTIME_DIR", "TMPDIR", "DISPLAY", "WAYLAND_DISPLAY",
        "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CURRENT_DESKTOP", "AUTHBROKER_BROWSER", "BROWSER",
    ]

    package static func environment() -> [String: String] {
        var result: [String: String] = [:]
        for name in environmentNames {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }
}
