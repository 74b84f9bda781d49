import BrokerCore
import BrokerHTTP
import Foundation
import Testing

/// docs/security.md "Hardening of the units" must not drift from the shipped units: every
/// `Directive=value` it lists is read from the doc and looked up in the user and the system
/// service (or only the one the doc names), and the stop timeout stays above the daemon's drain.
@Suite struct SystemdUnitsDocTests {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// A unit file's directives, in order; a key may repeat (`SystemCallFilter=`).
    static func directives(_ path: String) throws -> [(key: String, value: String)] {
        let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    static func values(_ key: String, in unit: [(key: String, value: String)]) -> [String] {
        unit.filter { $0.key == key }.map(\.value)
    }

    enum Scope { case both, user, system }

    /// The directives the doc section lists, with the unit(s) they apply to. In a bullet, text
    /// saying "user unit" or "system unit" scopes the directives after it; "`A=x` minus `y`"
    /// means `A=~y`. A bare `Protect…=` means `=yes`, a bare capability set means empty (none).
    static func documentedDirectives() throws -> [(scope: Scope, key: String, value: String)] {
        let doc = try String(contentsOfFile: root + "/docs/security.md", encoding: .utf8)
        let section = try #require(doc.components(separatedBy: "## Hardening of the units").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        var result: [(scope: Scope, key: String, value: String)] = []
        // A bullet ends at a blank line: the paragraphs after the list name directives the units lack.
        for bullet in section.components(separatedBy: "\n- ").dropFirst().map({ $0.components(separatedBy: "\n\n")[0] }) {
            var scope = Scope.both
            var previousText = ""
            for (index, part) in bullet.split(separator: "`", omittingEmptySubsequences: false).enumerated() {
                guard index % 2 == 1 else {
                    let text = part.lowercased()
                    if text.contains("system unit") { scope = .system } else if text.contains("user unit") { scope = .user }
                    previousText = text.trimmingCharacters(in: .whitespacesAndNewlines)
                    continue
                }
                if previousText.hasSuffix("minus"), let last = result.last {
                    result.append((last.scope, last.key, "~" + part))
                } else if let equals = part.firstIndex(of: "="), part.first?.isUppercase == true {
                    let key = String(part[..<equals])
                    var value = String(part[part.index(after: equals)...])
                    if value.isEmpty && !key.contains("Capabilit") { value = "yes" }
                    result.append((scope, key, value))
                }
            }
        }
        return result
    }

    /// Backs docs/security.md "Hardening of the units": "The user service … and the system
    /// service … run with:" the listed directives.
    @Test func everyHardeningDirectiveTheDocListsIsSetInTheUnitsItNames() throws {
        let documented = try Self.documentedDirectives()
        try #require(documented.count >= 35, "parsed only \(documented.count) directives from docs/security.md")
        let user = try Self.directives("systemd/authbrokerd.service")
        let system = try Self.directives("systemd/system/authbrokerd.service")
        for (scope, key, value) in documented {
            if scope != .system {
                #expect(Self.values(key, in: user).contains(value), "systemd/authbrokerd.service lacks \(key)=\(value)")
            }
            if scope != .user {
                #expect(Self.values(key, in: system).contains(value), "systemd/system/authbrokerd.service lacks \(key)=\(value)")
            }
        }
        #expect(Self.values("PrivateUsers", in: system).isEmpty, "the system unit must not set PrivateUsers= (--allow-uid)")
    }

    /// The other direction: every directive of the two services is either in the doc's list (for
    /// that unit, with that value) or one of the operational ones below, whose values are checked
    /// by the other tests of this suite or say nothing about confinement. A hardening directive
    /// added to, changed in or dropped from a unit without the doc following fails here or above.
    @Test func everyDirectiveOfTheServicesIsInTheDocsListOrOperational() throws {
        let documented = try Self.documentedDirectives()
        let operational: Set<String> = [
            "Description", "Documentation", "Requires", "After", "Wants", "Also", "NotifyAccess", "ExecStartPre",
            "ExecStart", "ExecReload", "RestartSec", "TimeoutStopSec", "EnvironmentFile", "User", "Group",
            "LoadCredential", "ReadWritePaths", "StateDirectoryMode", "RuntimeDirectory", "RuntimeDirectoryMode",
            "RuntimeDirectoryPreserve",
        ]
        for (path, scope) in [("systemd/authbrokerd.service", Scope.user), ("systemd/system/authbrokerd.service", .system)] {
            let listed = documented.filter { $0.scope == .both || $0.scope == scope }
            for (key, value) in try Self.directives(path) where !operational.contains(key) {
                #expect(
                    listed.contains { $0.key == key && $0.value == value },
                    "\(path) sets \(key)=\(value), which docs/security.md does not list")
            }
        }
    }

    /// Backs the paths and the system-unit specifics of the same section: user state writable
    /// only in `~/.local/state/authbroker` and `~/.config/authbroker`; `StateDirectory=` 0700;
    /// the dedicated user, the key credential, the socket 0660 for the group.
    @Test func theUnitsWritableStateUserCredentialAndSocketModesMatchTheDoc() throws {
        let user = try Self.directives("systemd/authbrokerd.service")
        let system = try Self.directives("systemd/system/authbrokerd.service")
        #expect(Self.values("ReadWritePaths", in: user) == ["%h/.local/state/authbroker %E/authbroker %t/authbroker"])
        #expect(Self.values("ReadWritePaths", in: system) == ["/var/lib/authbroker /run/authbroker"])
        #expect(Self.values("StateDirectoryMode", in: system) == ["0700"])
        #expect(Self.values("User", in: system) == ["authbroker"])
        #expect(Self.values("LoadCredential", in: system).contains { $0.hasPrefix("authbroker.key:") })
        let systemSocket = try Self.directives("systemd/system/authbrokerd.socket")
        #expect(Self.values("SocketMode", in: systemSocket) == ["0660"])
        #expect(Self.values("SocketGroup", in: systemSocket) == ["authbroker"])
    }

    /// Backs docs/security.md "Hardening of the units": the directory of each socket unit's socket
    /// is writable by its service (`ReadWritePaths=`), where the daemon makes its restricted
    /// sockets: `ProtectSystem=strict` leaves everything else read-only. (Failed before: the user
    /// service lacked `%t/authbroker`, so `authctl socket add` failed under it.)
    @Test func eachServiceMayWriteItsSocketUnitsDirectory() throws {
        for (service, socket) in [
            ("systemd/authbrokerd.service", "systemd/authbrokerd.socket"),
            ("systemd/system/authbrokerd.service", "systemd/system/authbrokerd.socket"),
        ] {
            let listen = try #require(Self.values("ListenStream", in: try Self.directives(socket)).first)
            let directory = String(listen[..<(listen.lastIndex(of: "/") ?? listen.startIndex)])
            let writable = Self.values("ReadWritePaths", in: try Self.directives(service)).flatMap { $0.split(separator: " ") }
            #expect(writable.contains(Substring(directory)), "\(service) cannot write \(directory), where \(socket) listens")
            #expect(Self.values("ProtectSystem", in: try Self.directives(service)) == ["strict"])
        }
    }

    /// Backs docs/security.md "Under systemd the socket unit does the same (`SocketMode=0600`,
    /// `DirectoryMode=0700`)."
    @Test func theUserSocketUnitIsOwnerOnlyAsTheDocSays() throws {
        let doc = try String(contentsOfFile: Self.root + "/docs/security.md", encoding: .utf8)
        #expect(doc.contains("(`SocketMode=0600`, `DirectoryMode=0700`)"))
        let socket = try Self.directives("systemd/authbrokerd.socket")
        #expect(Self.values("SocketMode", in: socket) == ["0600"])
        #expect(Self.values("DirectoryMode", in: socket) == ["0700"])
    }

    /// Backs docs/security.md "bounded by 10 s, inside `TimeoutStopSec=15s`": systemd must not
    /// SIGKILL the daemon while it still drains token-endpoint calls (10 s) and requests (5 s,
    /// side by side), or a stop loses a rotated refresh token.
    @Test func theStopTimeoutOfBothUnitsExceedsTheDaemonsDrainBound() throws {
        let drain = max(
            TokenBroker.Options().shutdownDrainTimeout, Double(HTTPServerConfiguration().drainTimeout.components.seconds))
        for path in ["systemd/authbrokerd.service", "systemd/system/authbrokerd.service"] {
            let stop = try #require(
                Self.values("TimeoutStopSec", in: try Self.directives(path)).last, "\(path) has no TimeoutStopSec=")
            let seconds = try #require(
                Double(stop.hasSuffix("s") ? String(stop.dropLast()) : stop), "\(path): TimeoutStopSec=\(stop) is not in seconds")
            #expect(seconds > drain, "\(path): TimeoutStopSec=\(stop) leaves no room after the \(drain) s drain")
        }
    }
}
