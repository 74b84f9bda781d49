import BrokerProtocol
import Testing

@testable import AuthctlCommands

/// authctl's argument handling, decided before anything runs or is printed.
@Suite struct InvocationTests {
    /// Metatype `==` does not survive #expect's expansion: compare identities.
    private func same(_ found: (any Command.Type)?, _ expected: any Command.Type) -> Bool {
        found.map { ObjectIdentifier($0) == ObjectIdentifier(expected) } ?? false
    }

    private func lookUp(_ name: String) -> (any Command.Type)? { command(named: name) }

    private func invocation(_ arguments: String...) throws -> Invocation { try Invocation(arguments) }

    private func run(_ arguments: String...) throws -> (
        command: any Command.Type, arguments: CommandLineArguments, global: CommandLineArguments
    ) {
        guard case .run(let command, let parsed, let global) = try Invocation(arguments) else {
            Issue.record("\(arguments) should run a command")
            throw UsageError("not a run")
        }
        return (command, parsed, global)
    }

    private func usageError(_ arguments: String...) -> String? {
        do {
            _ = try Invocation(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func noArgumentsShowTheOverviewAsAUsageError() throws {
        guard case .overview(let exitCode) = try invocation() else { throw UsageError("expected the overview") }
        #expect(exitCode == ExitCode.usage)
    }

    @Test func helpFlagsShowTheOverviewSuccessfully() throws {
        for flag in ["--help", "-h"] {
            guard case .overview(let exitCode) = try invocation(flag) else { throw UsageError("expected the overview") }
            #expect(exitCode == ExitCode.success)
        }
        guard case .overview(let exitCode) = try invocation("--help", "token") else { throw UsageError("expected the overview") }
        #expect(exitCode == ExitCode.success)
    }

    @Test func helpAfterACommandShowsThatCommandsHelp() throws {
        for arguments in [["token", "--help"], ["token", "work", "-h"], ["account", "add", "--help"]] {
            guard case .help(let command) = try Invocation(arguments) else { throw UsageError("expected help: \(arguments)") }
            #expect(same(command, try #require(lookUp(arguments[0]))))
        }
    }

    @Test func versionIsAGlobalFlag() throws {
        guard case .version = try invocation("--version") else { throw UsageError("expected version") }
        guard case .version = try invocation("--socket", "/s", "--version", "token") else { throw UsageError("expected version") }
    }

    @Test func theGlobalSocketOptionPrecedesTheCommand() throws {
        let (command, arguments, global) = try run("--socket", "/tmp/b.sock", "token", "work", "--min-ttl=30")
        #expect(same(command, TokenCommand.self))
        #expect(global.value("--socket") == "/tmp/b.sock")
        #expect(arguments.positionals == ["work"])
        #expect(arguments.value("--min-ttl") == "30")
        #expect(try run("--socket=/x", "status").global.value("--socket") == "/x")
    }

    @Test func optionsAfterTheCommandBelongToIt() {
        #expect(
            usageError("token", "work", "--socket", "/x")
                == "unknown option '--socket' for 'authctl token'; see: authctl token --help")
        #expect(usageError("--min-ttl", "5", "token", "work") == "unknown option '--min-ttl' for 'authctl'; see: authctl --help")
    }

    @Test func unknownCommandsAndOptionsAreUsageErrors() {
        #expect(usageError("frobnicate") == "unknown command 'frobnicate'; see: authctl help")
        #expect(
            usageError("token", "work", "--bogus") == "unknown option '--bogus' for 'authctl token'; see: authctl token --help")
    }

    @Test func aTypoGetsOneSuggestion() {
        #expect(usageError("stauts") == "unknown command 'stauts' (did you mean 'status'?); see: authctl help")
        #expect(usageError("tokne", "work") == "unknown command 'tokne' (did you mean 'token'?); see: authctl help")
        #expect(
            usageError("token", "work", "--min-tt", "5")
                == "unknown option '--min-tt' for 'authctl token' (did you mean '--min-ttl'?); see: authctl token --help")
        #expect(
            usageError("--sockt", "/x", "status")
                == "unknown option '--sockt' for 'authctl' (did you mean '--socket'?); see: authctl --help")
        // Nothing close: no guess.
        #expect(usageError("deploy") == "unknown command 'deploy'; see: authctl help")
    }

    @Test func aHugeArgumentIsEchoedShortened() throws {
        let huge = String(repeating: "x", count: 5000)
        let message = try #require(usageError(huge))
        #expect(message == "unknown command '\(String(repeating: "x", count: 60))…'; see: authctl help")
        let option = try #require(usageError("status", "--" + huge))
        #expect(option.count < 200 && option.contains("…'"), "\(option)")
    }

    @Test func execWithoutDoubleDashSaysSo() throws {
        let message = try #require(usageError("exec", "work", "ls", "-l"))
        #expect(
            message.hasPrefix("'authctl exec' needs '--' before the command (unknown option '-l' for 'authctl exec'"),
            "\(message)")
        #expect(message.hasSuffix("): authctl exec NAME [OPTIONS] -- CMD [ARGS...]"))
    }

    @Test func missingValuesAreUsageErrors() {
        #expect(usageError("--socket") == "'--socket' needs a value (in 'authctl')")
        #expect(usageError("token", "work", "--min-ttl") == "'--min-ttl' needs a value (in 'authctl token')")
        #expect(usageError("status", "--json=yes") == "'--json' takes no value (in 'authctl status')")
    }

    @Test func aSingleValueOptionGivenTwiceIsAUsageError() {
        #expect(usageError("token", "work", "--min-ttl", "5", "--min-ttl", "6") == "'--min-ttl' given twice (in 'authctl token')")
        #expect(usageError("--socket", "/a", "--socket", "/b", "status") == "'--socket' given twice (in 'authctl')")
    }

    @Test func everythingAfterDoubleDashIsPassedThrough() throws {
        // `--help` after `--` belongs to the program `authctl exec` runs.
        let (command, arguments, _) = try run("exec", "work", "--env", "TOKEN", "--", "curl", "--help", "--min-ttl")
        #expect(same(command, ExecCommand.self))
        #expect(arguments.positionals == ["work"])
        #expect(arguments.value("--env") == "TOKEN")
        #expect(arguments.passthrough == ["curl", "--help", "--min-ttl"])
    }

    @Test func accountSubcommandsKeepTheirOwnWords() throws {
        // The account command parses per subcommand: the top level leaves its words alone.
        let (command, arguments, _) = try run("account", "add", "work", "--issuer", "https://id.example", "--scope", "a")
        #expect(same(command, AccountCommand.self))
        #expect(arguments.positionals == ["add", "work", "--issuer", "https://id.example", "--scope", "a"])
    }

    @Test func accountAddAcceptsRepeatedScopesAndParametersOnly() throws {
        let parsed = try CommandLineArguments(
            ["work", "--scope", "openid", "--scope=email", "--param", "a=1", "--param", "b=2"],
            command: "authctl account add", options: AccountCommand.addOptions)
        #expect(parsed.all("--scope") == ["openid", "email"])
        #expect(parsed.all("--param") == ["a=1", "b=2"])
        #expect(throws: UsageError("'--issuer' given twice (in 'authctl account add')")) {
            try CommandLineArguments(
                ["work", "--issuer", "https://a", "--issuer", "https://b"], command: "authctl account add",
                options: AccountCommand.addOptions)
        }
    }

    @Test func theTokenRequestFormatIsFormOrJSON() throws {
        func format(_ words: [String]) throws -> TokenRequestFormat? {
            try AccountCommand.choice(
                "--token-request-format",
                CommandLineArguments(
                    ["work"] + words, command: "authctl account add", options: AccountCommand.addOptions))
        }
        #expect(try format([]) == nil)
        #expect(try format(["--token-request-format", "json"]) == .json)
        #expect(try format(["--token-request-format=form"]) == .form)
        #expect(throws: UsageError("--token-request-format takes form or json, got 'xml'")) {
            try format(["--token-request-format", "xml"])
        }
    }

    @Test func theTokenEndpointAuthMethodIsBasicOrPost() throws {
        func method(_ words: [String]) throws -> TokenEndpointAuthMethod? {
            try AccountCommand.choice(
                "--token-endpoint-auth-method",
                CommandLineArguments(
                    ["work"] + words, command: "authctl account add", options: AccountCommand.addOptions))
        }
        #expect(try method([]) == nil)
        #expect(try method(["--token-endpoint-auth-method", "client_secret_post"]) == .clientSecretPost)
        #expect(try method(["--token-endpoint-auth-method", "client_secret_basic"]) == .clientSecretBasic)
        let refusal = "--token-endpoint-auth-method takes client_secret_basic or client_secret_post, got 'post'"
        #expect(throws: UsageError(refusal)) { try method(["--token-endpoint-auth-method", "post"]) }
    }

    @Test func everyCommandIsFoundByItsName() {
        for command in commands {
            #expect(same(lookUp(command.name), command))
        }
        #expect(lookUp("Token") == nil)
    }
}

/// `authctl socket add --ttl`: the durations it takes, and a usage error for the rest.
@Suite struct SocketTTLTests {
    @Test func durationsInEveryUnit() throws {
        #expect(try SocketCommand.ttlSeconds("90") == 90)
        #expect(try SocketCommand.ttlSeconds("90s") == 90)
        #expect(try SocketCommand.ttlSeconds("15m") == 900)
        #expect(try SocketCommand.ttlSeconds("8h") == 28_800)
        #expect(try SocketCommand.ttlSeconds("30d") == 2_592_000)
        for bad in ["", "s", "0", "-5", "31d", "1.5h", "1w", "99999999999", "٣s"] {
            #expect(throws: UsageError.self, "\(bad)") { try SocketCommand.ttlSeconds(bad) }
        }
    }

    @Test func socketSubcommandsTakeTheirOwnOptions() throws {
        guard
            case .run(let command, let arguments, _) = try Invocation([
                "socket", "add", "remote", "--account", "work", "--ttl", "2s",
            ])
        else {
            Issue.record("not a run")
            return
        }
        #expect(ObjectIdentifier(command) == ObjectIdentifier(SocketCommand.self))
        #expect(arguments.positionals == ["add", "remote", "--account", "work", "--ttl", "2s"])
        for words in [
            ["socket", "--help"], ["socket", "add", "--help"], ["socket", "list", "-h"], ["socket", "remove", "--help"],
        ] {
            guard case .help(let shown) = try Invocation(words) else {
                Issue.record("\(words): no help")
                continue
            }
            #expect(ObjectIdentifier(shown) == ObjectIdentifier(SocketCommand.self), "\(words)")
        }
        #expect(SocketCommand.help.hasPrefix("usage: authctl socket add NAME --account A"))
    }
}
