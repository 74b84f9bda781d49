import BrokerCore

/// Placeholder until the daemon wiring lands.
public enum Daemon {
    public static func main(arguments: [String]) -> Int32 {
        if arguments.dropFirst().contains("--version") {
            print("authbrokerd \(BrokerCoreInfo.version)")
            return 0
        }
        print("authbrokerd \(BrokerCoreInfo.version): the daemon is not implemented yet")
        return 0
    }
}
