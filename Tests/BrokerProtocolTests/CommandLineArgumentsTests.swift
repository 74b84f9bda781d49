import BrokerProtocol
import Testing

private let options: [CommandLineArguments.Option] = [
    .flag("--json"), .value("--min-ttl"), .repeated("--scope"),
]

@Test func parsesValuesFlagsAndPositionals() throws {
    let parsed = try CommandLineArguments(
        ["work", "--json", "--min-ttl", "30", "--scope=openid", "--scope", "email"], command: "authctl token",
        options: options)
    #expect(parsed.positionals == ["work"])
    #expect(parsed.has("--json"))
    #expect(parsed.value("--min-ttl") == "30")
    #expect(parsed.all("--scope") == ["openid", "email"])
    #expect(try parsed.integer("--min-ttl", in: 0...86_400) == 30)
}

@Test func stopsAtFirstPositionalForGlobalOptions() throws {
    let parsed = try CommandLineArguments(
        ["--socket", "/s", "token", "--json"], command: "authctl", options: [.value("--socket")],
        stopAtFirstPositional: true)
    #expect(parsed.value("--socket") == "/s")
    #expect(parsed.positionals == ["token", "--json"])
}

@Test func doubleDashPassesTheRestThrough() throws {
    let parsed = try CommandLineArguments(["work", "--", "curl", "--json"], command: "authctl exec", options: options)
    #expect(parsed.positionals == ["work"])
    #expect(parsed.passthrough == ["curl", "--json"])
}

@Test func usageErrorsNameTheProblem() {
    #expect(throws: UsageError("unknown option '--nope' for 'authctl token'; see: authctl token --help")) {
        try CommandLineArguments(["--nope"], command: "authctl token", options: options)
    }
    #expect(throws: UsageError("'--min-ttl' needs a value (in 'authctl token')")) {
        try CommandLineArguments(["--min-ttl"], command: "authctl token", options: options)
    }
    #expect(throws: UsageError("'--json' takes no value (in 'authctl token')")) {
        try CommandLineArguments(["--json=yes"], command: "authctl token", options: options)
    }
    #expect(throws: UsageError("'--min-ttl' given twice (in 'authctl token')")) {
        try CommandLineArguments(["--min-ttl", "1", "--min-ttl", "2"], command: "authctl token", options: options)
    }
    #expect(throws: UsageError.self) {
        try CommandLineArguments(["--min-ttl", "-5"], command: "authctl token", options: options)
            .integer("--min-ttl", in: 0...10)
    }
}
