import Foundation

/// Executables of this package (`vault-torture`, `mock-oidc-provider`) are built next to the
/// test bundle, in the products directory.
public enum ProductBinary {
    /// The path of the product `name`; throws when it was not built.
    public static func path(_ name: String) throws -> String {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw ProductBinaryError(path: path) }
        return path
    }

    /// A copy of authctl at `directory/name`, with the full CLI it runs (authctl-full) beside it,
    /// as an installation has them. Returns the copy's path.
    @discardableResult
    public static func copyAuthctl(to directory: String, name: String = "authctl") throws -> String {
        let copy = directory + "/" + name
        for (source, target) in [("authctl", copy), ("authctl-full", directory + "/authctl-full")] {
            if !FileManager.default.fileExists(atPath: target) { try copyExecutable(try path(source), to: target) }
        }
        return copy
    }

    /// Copies an executable with cp(1), not from this process: a file this process holds open for
    /// writing is inherited by every child another test forks meanwhile, and exec of it then fails
    /// with ETXTBSY ("Text file busy") until that child execs.
    public static func copyExecutable(_ source: String, to target: String) throws {
        let result = try Subprocess.runBlocking(["/bin/cp", source, target])
        guard result.status == 0 else { throw ProductBinaryError(path: "\(target) (cp: \(result.stderr))") }
        chmod(target, 0o755)
    }
}

/// A package executable the tests need was not found.
public struct ProductBinaryError: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "no executable at \(path); build the package's products first" }
}
