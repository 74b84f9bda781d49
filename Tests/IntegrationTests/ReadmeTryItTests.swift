import Foundation
import TestSupport
import Testing

/// README's "Try it without an identity provider" runs as written, as one `sh -e` script: its
/// own socket, vault and key under `mktemp -d`, the mock and the daemon started in the
/// background, a login played by curl, a token and a status — and then it stops what it started
/// and removes its files. Two lines are the test's: the binaries (this build's, not a release
/// build) and the port (a free one, not 8765).
@Suite struct ReadmeTryItTests {
    static let buildLine = "B=$(swift build -c release --show-bin-path)"
    static let portLine = "PORT=8765"

    /// A port nothing listens on right now (bound to port 0 on loopback, then released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw HarnessError.unexpected("no free loopback port: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test(.timeLimit(.minutes(2)))
    func theTryItSectionRunsAsWrittenAndLeavesNothingBehind() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is needed (apt-get install curl)")
        let readme = try String(contentsOfFile: ChildProcess.repositoryRoot + "/README.md", encoding: .utf8)
        let blocks = DocExample.blocks(in: readme, section: "### Try it without an identity provider")
        #expect(blocks.count == 1, "one sh block expected: \(blocks)")
        var lines = try #require(blocks.first).map(\.command)
        let build = try #require(lines.firstIndex { $0.hasPrefix(Self.buildLine + " ") || $0 == Self.buildLine }, "\(lines)")
        let port = try #require(lines.firstIndex { $0.hasPrefix(Self.portLine + " ") || $0 == Self.portLine }, "\(lines)")
        let binaries = URL(fileURLWithPath: try ChildProcess.binary("authctl")).deletingLastPathComponent().path
        lines[build] = "B=" + binaries
        lines[port] = "PORT=\(try Self.freePort())"

        let directory = try TemporaryDirectory(prefix: "readme-try")
        defer { directory.remove() }
        let root = directory.path
        let environment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": root, "TMPDIR": root, "XDG_RUNTIME_DIR": root]
        let run = try await Subprocess.run(
            ["/bin/sh", "-e", "-c", lines.joined(separator: "\n")], environment: environment, directory: root,
            timeout: .seconds(90))
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let output = run.stdout.split(separator: "\n")
        #expect(output.count >= 3 && !output[0].isEmpty && !output[0].contains(" "), "a token first: \(run.stdout)")
        #expect(output.contains { $0.hasPrefix("demo ") && $0.contains("active") }, "\(run.stdout)")
        #expect(run.stderr.contains("Signed in to 'demo'"), "\(run.stderr)")
        // It stopped what it started and removed its files: nothing of the demo is left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).isEmpty, "left behind in \(root)")
        #expect(Self.processes(withEnvironment: "AUTHBROKER_SOCKET=" + root).isEmpty, "still running")
    }

    /// Pids of this user's processes whose environment holds an entry starting with `prefix`.
    static func processes(withEnvironment prefix: String) -> [String] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.allSatisfy(\.isNumber) } ?? []
        return pids.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return data.split(separator: 0).contains { String(decoding: $0, as: UTF8.self).hasPrefix(prefix) }
        }
    }
}
