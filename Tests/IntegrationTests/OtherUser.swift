import Foundation
import TestSupport

/// Another real local user for system-mode tests: `authctl` runs as it through
/// `setpriv --reuid --regid --clear-groups`, so the daemon sees its uid in SO_PEERCRED.
struct OtherUser: Sendable, CustomStringConvertible {
    let name: String
    let uid: UInt32
    let gid: UInt32
    /// An authctl binary this user can execute.
    let authctlPath: String

    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let useradd = ["/usr/sbin/useradd", "/sbin/useradd"].first { FileManager.default.isExecutableFile(atPath: $0) }

    var prefix: [String] { [Self.setpriv!, "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] }
    var description: String { "\(name) (uid \(uid))" }

    /// The user `name` with an authctl it can run from `directory`; created as a system user
    /// without a home when missing (needs root and useradd).
    static func make(_ name: String, authctlIn directory: String) async throws -> OtherUser {
        if getpwnam(name) == nil {
            let log = directory + "/useradd-\(name).log"
            let useradd = try SpawnedProcess(
                [Self.useradd!, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], stdoutPath: log, stderrPath: log)
            let status = await useradd.waitForExit(timeout: 30)
            // Another test process may have created it meanwhile: only its absence is a failure.
            guard status == 0 || getpwnam(name) != nil else {
                throw HarnessError.unexpected("useradd \(name) exited \(status): \(useradd.stderr)")
            }
        }
        guard let entry = getpwnam(name) else { throw HarnessError.unexpected("no user \(name)") }
        return OtherUser(
            name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid,
            authctlPath: try authctlForOthers(in: directory))
    }

    /// Lets other users reach the harness's socket. The daemon binds it 0600 in a 0700 directory;
    /// in a real system-wide install the socket unit gives it (SocketGroup=authbroker,
    /// SocketMode=0660). The file mode is only the first fence: the daemon's peer check and the
    /// per-owner scoping are what these tests are about.
    static func openSocket(of harness: BrokerHarness) {
        chmod(harness.root, 0o711)
        chmod(harness.runtime, 0o711)
        chmod(harness.socket, 0o666)
    }

    /// The built authctl when other users can execute it where it is; else a copy in `directory`
    /// (a checkout under /root is out of their reach).
    static func authctlForOthers(in directory: String) throws -> String {
        let built = try BrokerHarness.binary("authctl")
        var path = built
        var reachable = true
        while reachable, !path.isEmpty, path != "/" {
            var info = stat()
            reachable = stat(path, &info) == 0 && info.st_mode & S_IXOTH != 0
            path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        }
        if reachable { return built }
        return try ProductBinary.copyAuthctl(to: directory, name: "authctl-for-others")
    }
}
