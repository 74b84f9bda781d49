import BrokerCore
import BrokerProtocol

/// Placeholder until the daemon wiring lands.
public enum Daemon {
    public static func main(arguments: [String]) -> Int32 {
        if arguments.dropFirst().contains("--version") {
            print("authbrokerd \(BrokerVersion.string)")
            return 0
        }
        print("authbrokerd \(BrokerVersion.string): the daemon is not implemented yet")
        return 0
    }
}
