/// The real git in a scratch home: a bare repository `repos/project.git` with one commit, pushed
/// from a work tree `work`, for the git-credential tests that serve it over smart HTTP.
public struct GitWorkspace: Sendable {
    public static let git = "/usr/bin/git"
    public let root: String

    /// Creates the repositories under `root`, which is also git's HOME (no user or system config).
    public static func create(in root: String) async throws -> GitWorkspace {
        let workspace = GitWorkspace(root: root)
        let work = root + "/work"
        for arguments in [
            ["init", "-q", "--bare", root + "/repos/project.git"], ["init", "-q", work],
            ["-C", work, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "first"],
            ["-C", work, "push", "-q", root + "/repos/project.git", "HEAD:refs/heads/main"],
        ] {
            let result = try await workspace.run(arguments)
            guard result.status == 0 else { throw WorkspaceError(arguments: arguments, output: result.stderr) }
        }
        return workspace
    }

    /// Runs git with `arguments` (and `environment` added) in the scratch home.
    public func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> Subprocess.Result {
        let environment = ["PATH": "/usr/bin:/bin", "HOME": root, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1"]
        return try await Subprocess.run(
            [Self.git] + arguments, environment: environment.merging(extra) { $1 }, directory: root)
    }

    struct WorkspaceError: Error, CustomStringConvertible {
        var arguments: [String]
        var output: String
        var description: String { "git \(arguments.joined(separator: " ")) failed: \(output)" }
    }
}
