import BrokerProtocol

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "version", "--version":
    print("authctl \(BrokerVersion.string)")
case nil, "help", "--help", "-h":
    print("usage: authctl <command> [options]\n\ncommands:\n  version   print the version")
default:
    FileHandleless.printError("authctl: unknown command '\(arguments.first!)'. See: authctl --help")
    exit(64)
}

enum FileHandleless {
    static func printError(_ line: String) {
        fputs(line + "\n", stderr)
    }
}
