import BrokerDaemon
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

// authbrokerd: everything lives in BrokerDaemon; this only passes the process's inputs in.
exit(Daemon.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
