import BrokerDaemon

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

exit(Daemon.main(arguments: CommandLine.arguments))
