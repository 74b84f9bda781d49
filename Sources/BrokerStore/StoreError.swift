/// Errors from the SQLite store and the encrypted vault.
public enum StoreError: Error, Sendable {
    case notImplemented
}
