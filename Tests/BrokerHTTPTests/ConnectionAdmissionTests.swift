import BrokerHTTP
import Foundation
import Glibc
import TestSupport
import Testing

/// Who gets a connection slot (issue: 64 idle connections locked the socket API for everyone):
/// refused uids are closed at accept, each other uid gets a share, idle connections give way to
/// new ones, and a connection that sends nothing is closed after `firstRequestTimeout`.
@Suite struct ConnectionAdmissionTests {
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let perl = ["/usr/bin/perl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let canRunAsNobody = geteuid() == 0 && setpriv != nil && perl != nil
    static let nobody: UInt32 = 65534

    @Test func anIdleConnectionGivesWayToANewClientAtTheCap() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 4
        try await withServer(configuration: configuration) { _, path in
            let (served, oldestClosed, othersOpen) = try await onThread {
                // Four connections that send nothing, like a hostile local client's.
                let idle = try (0..<4).map { _ in try TestClient(unixPath: path) }
                let fresh = try TestClient(unixPath: path)
                let response = try fresh.get("/fresh")
                return (response?.status, idle[0].isClosedByServer(), idle[1...].allSatisfy { !Self.isReadable($0.fd) })
            }
            #expect(served == 200)
            #expect(oldestClosed)
            #expect(othersOpen)
        }
    }

    @Test func whenEveryConnectionIsInAHandlerTheNextGets503() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 2
        let gate = Gate()
        let handler = HTTPClosureHandler { request, _ in
            if request.path == "/hold" { await gate.hold() }
            return HTTPResponse(status: 200, body: Array("ok".utf8))
        }
        try await withServer(configuration: configuration, handler: handler) { server, path in
            let busy = try await onThread { try (0..<2).map { _ in try TestClient(unixPath: path) } }
            busy.forEach { $0.send("GET /hold HTTP/1.1\r\nHost: localhost\r\n\r\n") }
            #expect(try await onThread { (0..<2).allSatisfy { _ in gate.entered.wait(timeout: .now() + 10) == .success } })
            let (status, closed): (Int?, Bool) = try await onThread {
                let third = try TestClient(unixPath: path)
                let response = try third.readResponse()
                return (response?.status, response?.headers["connection"] == "close" && third.isClosedByServer())
            }
            #expect(status == 503)
            #expect(closed)
            #expect(server.connectionCount == 2)
            gate.release.signal()
            gate.release.signal()
            let answers = try await onThread { try busy.map { try $0.readResponse()?.status } }
            #expect(answers == [200, 200])
        }
    }

    @Test func aConnectionThatSendsNoRequestIsClosedAfterTheFirstRequestTimeout() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.firstRequestTimeout = .milliseconds(300)
        configuration.idleTimeout = .seconds(60)
        try await withServer(configuration: configuration) { _, path in
            let (silentClosed, keptAlive) = try await onThread {
                let silent = try TestClient(unixPath: path)
                let talker = try TestClient(unixPath: path)
                let first = try talker.get("/1")?.status
                usleep(600_000)  // past firstRequestTimeout: a served connection stays (idleTimeout)
                let second = try talker.get("/2")?.status
                return (silent.isClosedByServer(), [first, second])
            }
            #expect(silentClosed)
            #expect(keptAlive == [200, 200])
        }
    }

    @Test(.enabled(if: canRunAsNobody, "needs root, setpriv and perl to connect as another uid"), .timeLimit(.minutes(1)))
    func aRefusedUIDIsAnsweredAndClosedAtOnceAndHoldsNoSlot() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 4
        configuration.firstRequestTimeout = .seconds(30)  // only the refusal can close them in time
        let handler = RefusingHandler(allowedUID: getuid())
        try await withServer(configuration: configuration, handler: handler, forOthers: true) { server, path in
            let report = try await Self.connectAsNobody(count: 8, to: path)
            #expect(report == "closed 8 first=HTTP/1.1 403 Forbidden", "\(report)")
            let owner = try await onThread { try (0..<4).map { _ in try TestClient(unixPath: path).get("/")?.status } }
            #expect(owner == [200, 200, 200, 200])
            #expect(server.connectionCount <= 4)
        }
    }

    @Test(.enabled(if: canRunAsNobody, "needs root, setpriv and perl to connect as another uid"), .timeLimit(.minutes(1)))
    func anotherUIDHoldsOnlyItsShareAndTheOwnerIsServed() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 8
        configuration.maxConnectionsPerUID = 2
        configuration.firstRequestTimeout = .seconds(30)
        try await withServer(configuration: configuration, forOthers: true) { _, path in
            // Eight idle connections from nobody: each one past its share evicts its own oldest.
            let report = try await Self.connectAsNobody(count: 8, to: path)
            #expect(report == "closed 6 first=", "\(report)")
            let owner = try await onThread { try (0..<6).map { _ in try TestClient(unixPath: path).get("/")?.status } }
            #expect(owner == Array(repeating: 200, count: 6))
        }
    }

    // MARK: Support

    /// Opens `count` connections as nobody (50 ms apart, so they are accepted in order), waits
    /// 300 ms, then reports how many the server closed and the first line any of them received.
    static let holder = #"""
        use strict; use IO::Socket::UNIX; use IO::Select;
        alarm 20;
        my ($path, $count) = @ARGV; my @sockets;
        for (1..$count) {
            push @sockets, IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $path) or die "connect: $!";
            select(undef, undef, undef, 0.05);
        }
        select(undef, undef, undef, 0.3);
        my ($closed, $first) = (0, "");
        for my $socket (@sockets) {
            next unless IO::Select->new($socket)->can_read(0);
            my $text = ""; my $chunk;
            while (sysread($socket, $chunk, 4096)) { $text .= $chunk; }
            $first = (split /\r\n/, $text)[0] if $first eq "" && $text ne "";
            $closed++;
        }
        print "closed $closed first=$first\n";
        """#

    static func connectAsNobody(count: Int, to path: String) async throws -> String {
        let directory = String(path[..<path.lastIndex(of: "/")!])
        let script = directory + "/holder.pl"
        try holder.write(toFile: script, atomically: false, encoding: .utf8)
        chmod(script, 0o644)
        let result = try await Subprocess.run(
            [setpriv!, "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", perl!, script, path, String(count)],
            timeout: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    static func isReadable(_ fd: Int32) -> Bool {
        var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&probe, 1, 100) > 0
    }

    /// A server on `DIR/api.sock`; `forOthers` opens the directory and socket to other uids (the
    /// file mode is only the first fence: the tests are about what the server does).
    func withServer(
        configuration: HTTPServerConfiguration, handler: any HTTPHandler = OKHandler(), forOthers: Bool = false,
        _ body: (HTTPServer, String) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("api.sock")
        let server = HTTPServer.start(listener: try .unix(path: path), configuration: configuration, handler: handler)
        if forOthers {
            chmod(directory.path, 0o711)
            chmod(path, 0o666)
        }
        do { try await body(server, path) } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

private struct OKHandler: HTTPHandler {
    func handle(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        HTTPResponse(status: 200, body: Array("ok".utf8))
    }
}

/// Refuses every uid but one at accept, like the socket API's peer policy.
private struct RefusingHandler: HTTPHandler {
    let allowedUID: UInt32

    func handle(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        HTTPResponse(status: 200, body: Array("ok".utf8))
    }

    func refusal(for connection: ConnectionInfo) -> HTTPResponse? {
        connection.credentials?.uid == allowedUID ? nil : .plainText(status: 403, "not your daemon")
    }
}
