import BrokerProtocol

/// Placeholder until the OIDC engine lands.
public enum BrokerCoreInfo {
    public static let version = BrokerVersion.string
}
