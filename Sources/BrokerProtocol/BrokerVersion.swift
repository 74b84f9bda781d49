/// The version printed by `authctl version` and `authbrokerd --version`, and reported by `GET /v1/status`.
public enum BrokerVersion {
    public static let string = "0.1.0"
}
