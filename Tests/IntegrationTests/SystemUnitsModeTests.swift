import Foundation
import TestSupport
import Testing

/// System mode as the shipped units set it up (docs/security.md, "System mode", "Restricted
/// sockets"): the daemon runs as its own user, started by `systemd-socket-activate` on a socket
/// with the socket unit's owner, group and mode, in a directory with the service unit's
/// `RuntimeDirectoryMode=` — every mode read from `systemd/system/*`, so unit and test cannot
/// drift, and nothing is chmod'ed afterwards. Two real users (members of the daemon's group, as
/// the socket unit requires) each make a restricted socket called `remote`.
@Suite(.serialized) struct SystemUnitsModeTests {
    static let socketActivate = ["/usr/bin/systemd-socket-activate", "/bin/systemd-socket-activate"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let canRun = SystemOwnershipTests.canRun && socketActivate != nil
    static let why = "needs root, setpriv, useradd and systemd-socket-activate to run the units' layout with real users"

    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The last value of `key` in the unit file at `path` (relative to the package).
    static func unitValue(_ path: String, _ key: String) throws -> String {
        let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
        let values = text.split(separator: "\n").filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        return try #require(values.last, "\(path) has no \(key)=")
    }

    static func mode(_ text: String) throws -> mode_t { try #require(mode_t(text, radix: 8), "not an octal mode: \(text)") }

    /// One user of the test: runs authctl through setpriv with the daemon's group added (as a
    /// member of `authbroker` would).
    struct Client {
        let user: OtherUser
        let daemonGroup: UInt32
        var prefix: [String] { [OtherUser.setpriv!, "--reuid=\(user.uid)", "--regid=\(user.gid)", "--groups=\(daemonGroup)"] }
    }

    @Test(.enabled(if: canRun, .init(rawValue: why)), .timeLimit(.minutes(3)))
    func eachOwnerReachesOnlyItsOwnRestrictedSocketsUnderTheSystemUnitsModes() async throws {
        let service = "systemd/system/authbrokerd.service"
        let socketUnit = "systemd/system/authbrokerd.socket"
        let harness = try BrokerHarness()
        let daemonUser = try await OtherUser.make("abtestd", authctlIn: harness.root)
        let first = Client(user: try await OtherUser.make("abtest1", authctlIn: harness.root), daemonGroup: daemonUser.gid)
        let second = Client(user: try await OtherUser.make("abtest2", authctlIn: harness.root), daemonGroup: daemonUser.gid)
        let provider = try await MockProviderProcess(directory: harness.root)
        chmod(harness.root, 0o755)

        // /run (root's), /run/authbroker as RuntimeDirectory= leaves it, the state directory as
        // StateDirectory= does, and the key as LoadCredential= hands it over.
        let run = harness.root + "/sysrun"
        let state = harness.root + "/var-lib-authbroker"
        let credentials = harness.root + "/credentials"
        let listen = try Self.unitValue(socketUnit, "ListenStream")
        #expect(listen.hasPrefix("/run/"))
        let socket = run + listen.dropFirst("/run".count)
        let base = String(socket[..<socket.lastIndex(of: "/")!])
        #expect(base == run + "/" + (try Self.unitValue(service, "RuntimeDirectory")))
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        chmod(run, 0o755)
        chown(base, daemonUser.uid, daemonUser.gid)
        chmod(base, try Self.mode(Self.unitValue(service, "RuntimeDirectoryMode")))
        #expect(mkdir(state, 0o700) == 0 && mkdir(credentials, 0o700) == 0)
        chown(state, daemonUser.uid, daemonUser.gid)
        chmod(state, try Self.mode(Self.unitValue(service, "StateDirectoryMode")))
        let key = (0..<32).map { _ in UInt8.random(in: 0...255) }
        #expect(
            FileManager.default.createFile(
                atPath: credentials + "/authbroker.key", contents: Data((Data(key).base64EncodedString() + "\n").utf8)))
        chown(credentials + "/authbroker.key", daemonUser.uid, daemonUser.gid)
        chmod(credentials + "/authbroker.key", 0o400)
        chown(credentials, daemonUser.uid, daemonUser.gid)
        let daemonBinary = harness.root + "/authbrokerd"
        try ProductBinary.copyExecutable(try BrokerHarness.binary("authbrokerd"), to: daemonBinary)

        // ExecStart= as written, with this test's paths and the allowed users as AUTHBROKERD_OPTIONS.
        let execStart = try Self.unitValue(service, "ExecStart")
            .replacingOccurrences(of: "/usr/local/bin/authbrokerd", with: daemonBinary)
            .replacingOccurrences(of: "/run/", with: run + "/")
            .replacingOccurrences(of: "/var/lib/authbroker", with: state)
            .replacingOccurrences(
                of: "$AUTHBROKERD_OPTIONS", with: "--allow-uid \(first.user.uid) --allow-uid \(second.user.uid)")
        let environment = ["PATH": "/usr/bin:/bin", "HOME": state, "CREDENTIALS_DIRECTORY": credentials]
        var command = [Self.socketActivate!, "-l", socket]
        for (name, value) in environment { command += ["-E", "\(name)=\(value)"] }
        command += [OtherUser.setpriv!, "--reuid=\(daemonUser.uid)", "--regid=\(daemonUser.gid)", "--clear-groups"]
        command += execStart.split(separator: " ").map(String.init)
        let log = harness.root + "/activator.log"
        let activator = try SpawnedProcess(command, environment: environment, stdoutPath: log, stderrPath: log)
        let listening = await SpawnedProcess.eventually(timeout: 30) { FileManager.default.fileExists(atPath: socket) }
        try #require(listening, "no socket from systemd-socket-activate: \(activator.stderr)")
        // What the socket unit gives the socket (the daemon starts only at the first connection).
        let socketOwner = try #require(getpwnam(try Self.unitValue(socketUnit, "SocketUser"))).pointee.pw_uid
        #expect(try Self.unitValue(socketUnit, "SocketGroup") == "authbroker")  // stood in for by the daemon user's group
        chown(socket, socketOwner, daemonUser.gid)
        chmod(socket, try Self.mode(Self.unitValue(socketUnit, "SocketMode")))

        func authctl(_ client: Client, _ arguments: [String], socket path: String = socket) async throws -> BrokerHarness.Run {
            let name = harness.root + "/authctl-\(UInt64.random(in: 0...UInt64.max))"
            let process = try SpawnedProcess(
                client.prefix + [client.user.authctlPath, "--socket", path] + arguments,
                environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"], stdoutPath: name + ".out",
                stderrPath: name + ".err")
            let status = await process.waitForExit(timeout: 30)
            return BrokerHarness.Run(status: status, stdout: process.stdout, stderr: process.stderr, pid: process.pid)
        }

        let ping = try await authctl(first, ["ping"])
        try #require(ping.status == 0, "the daemon did not serve under the units' modes: \(ping)\n\(activator.stderr)")
        var paths: [String] = []
        for client in [first, second] {
            let add = try await authctl(
                client,
                [
                    "account", "add", "work", "--issuer", provider.issuer, "--client-id", "mock-client", "--scope", "openid",
                ])
            #expect(add.status == 0, "\(add)")
            // Names are per owner: both may have `remote`.
            let socketAdd = try await authctl(client, ["socket", "add", "remote", "--account", "work"])
            #expect(socketAdd.status == 0, "\(socketAdd)\n\(activator.stderr)")
            #expect(socketAdd.line == base + "/restricted/\(client.user.uid)/remote.sock", "\(socketAdd)")
            paths.append(socketAdd.line)
        }

        // Owned by the daemon, reachable by its group, listable by nobody else.
        for (path, mode, type) in [
            (base + "/restricted", 0o710, S_IFDIR), (base + "/restricted/\(first.user.uid)", 0o710, S_IFDIR),
            (paths[0], 0o660, S_IFSOCK),
        ] {
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_uid == daemonUser.uid && info.st_gid == daemonUser.gid, "\(path)")
            #expect(info.st_mode & 0o7777 == mode && info.st_mode & S_IFMT == type, "\(path): \(String(info.st_mode, radix: 8))")
        }
        let list = try SpawnedProcess(
            second.prefix + ["/bin/ls", base + "/restricted/\(first.user.uid)"], environment: ["PATH": "/usr/bin:/bin"],
            stdoutPath: harness.root + "/ls.out", stderrPath: harness.root + "/ls.err")
        #expect(await list.waitForExit() != 0 && !list.stdout.contains("remote"), "\(list.stdout)")

        // Each owner uses its own; the other owner's answers 403 (the peer check, not the mode).
        for (index, client) in [first, second].enumerated() {
            let own = try await authctl(client, ["ping"], socket: paths[index])
            #expect(own.status == 0, "\(client.user) on its own restricted socket: \(own)")
            let other = try await authctl(client, ["token", "work"], socket: paths[1 - index])
            #expect(other.status != 0 && other.stderr.contains("is restricted"), "\(client.user) on the other's: \(other)")
            let listed = try await authctl(client, ["socket", "list"])
            #expect(listed.stdout.contains(paths[index]) && !listed.stdout.contains(paths[1 - index]), "\(listed)")
        }
        let removed = try await authctl(first, ["socket", "remove", "remote"])
        #expect(removed.status == 0, "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: paths[0]) && FileManager.default.fileExists(atPath: paths[1]))
        #expect(await activator.stop() == 0, "\(activator.stderr)")
    }
}
