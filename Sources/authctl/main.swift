import BrokerProtocol
@preconcurrency import Glibc

// authctl: parse global options, pick the command, map failures to exit codes.
exit(Authctl.main(Array(CommandLine.arguments.dropFirst()), environment: Authctl.environment()))
