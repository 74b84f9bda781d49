import Foundation
import TestSupport

/// Where the integration tests find the real binaries SwiftPM built and the repository's files.
/// Children are run with `Subprocess` (TestSupport).
enum ChildProcess {
    static func binary(_ name: String) throws -> String { try ProductBinary.path(name) }

    /// The repository root, found from this source file's path (docs live there).
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}
