import Foundation

/// A fresh directory under the system temp dir, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "authbroker-test") throws {
        let base = FileManager.default.temporaryDirectory.path
        let template = "\(base)/\(prefix)-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: made)
    }

    public func appending(_ component: String) -> String { "\(path)/\(component)" }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
