import AuthctlCommands
@preconcurrency import Glibc

// authctl: everything but this line lives in AuthctlCommands (unit-tested there).
exit(Authctl.main(Array(CommandLine.arguments.dropFirst()), environment: Authctl.environment()))
