import Foundation

/// Executables of this package (`vault-torture`, `mock-oidc-provider`) are built next to the
/// test bundle, in the products directory.
public enum ProductBinary {
    /// The path of the product `name`; throws when it was not built.
    public static func path(_ name: String) throws -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw ProductBinaryError(path: path) }
        return path
    }
}

/// A package executable the tests need was not found.
public struct ProductBinaryError: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "no executable at \(path); build the package's products first" }
}
