import Foundation
import Testing

/// The caller a connection is served as is the program that connected (docs/security.md, "What
/// is logged"): the daemon reads /proc/PID/exe once, when it admits the connection. A client that
/// connects, then execs another program that inherits the socket, is still the first program —
/// for the caller policy and in the audit line.
@Suite(.serialized) struct ConnectionIdentityTests {
    static let perl = "/usr/bin/perl"
    static let python = "/usr/bin/python3"
    static let available =
        FileManager.default.isExecutableFile(atPath: perl)
        && FileManager.default.isExecutableFile(atPath: python)

    /// perl connects, asks for /v1/ping (so the daemon has admitted the connection), clears
    /// FD_CLOEXEC and execs the rest of its arguments with the socket's descriptor appended.
    static let connectThenExec = #"""
        use strict; use IO::Socket::UNIX; use Fcntl;
        alarm 20;
        my ($path, @next) = @ARGV;
        my $socket = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $path) or die "connect: $!";
        print $socket "GET /v1/ping HTTP/1.1\r\nHost: localhost\r\n\r\n";
        my $reply = "";
        sysread($socket, $reply, 4096) or die "no ping answer";
        $reply =~ m{^HTTP/1.1 200} or die "ping: $reply";
        fcntl($socket, F_SETFD, fcntl($socket, F_GETFD, 0) & ~FD_CLOEXEC) or die "fcntl: $!";
        exec(@next, fileno($socket)) or die "exec: $!";
        """#

    /// python asks for ACCOUNT's token on the inherited descriptor (`--fd N`) or on a connection
    /// of its own (`--socket PATH`) and prints the status line and the body.
    static let askForToken = #"""
        import signal, socket, sys
        signal.alarm(20)
        account, how, where = sys.argv[1:4]
        if how == "--fd":
            connection = socket.socket(fileno=int(where))
        else:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(where)
        request = f"GET /v1/accounts/{account}/token HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\nConnection: close\r\n\r\n"
        connection.sendall(request.encode())
        answer = b""
        while chunk := connection.recv(4096):
            answer += chunk
        head, _, body = answer.decode().partition("\r\n\r\n")
        print(head.split("\r\n")[0])
        print(body.strip())
        """#

    @Test(.enabled(if: available, "needs perl and python3"), .timeLimit(.minutes(3)))
    func aProgramThatExecsAnotherOnItsConnectionIsStillTheProgramThatConnected() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let perl = URL(fileURLWithPath: Self.perl).resolvingSymlinksInPath().path
        let python = URL(fileURLWithPath: Self.python).resolvingSymlinksInPath().path
        let exec = harness.root + "/connect-then-exec.pl"
        let ask = harness.root + "/ask-for-token.py"
        try Self.connectThenExec.write(toFile: exec, atomically: false, encoding: .utf8)
        try Self.askForToken.write(toFile: ask, atomically: false, encoding: .utf8)
        let direct = [Self.python, ask, "work", "--socket", harness.socket]
        let handedOver = [Self.perl, exec, harness.socket, Self.python, ask, "work", "--fd"]

        let served = try await Self.run(handedOver, in: harness)
        #expect(served.hasPrefix("HTTP/1.1 200"), "\(served)\n\(harness.daemonLog)")
        let audits = harness.daemonLog.split(separator: "\n").filter { $0.contains("audit: token") }
        #expect(audits.count == 1 && audits[0].contains("exe=\(perl) "), "\(audits)")

        // Allowed: python. python on its own connection is served; through perl's it is not: judged
        // as perl, whose path no longer names the file the process runs (the caller policy reads
        // that file at its first check, after the exec), so it cannot even be named.
        #expect(try await harness.authctl(["account", "update", "work", "--allow-exe", python]).status == 0)
        let own = try await Self.run(direct, in: harness)
        #expect(own.hasPrefix("HTTP/1.1 200"), "\(own)")
        let refused = try await Self.run(handedOver, in: harness)
        #expect(refused.hasPrefix("HTTP/1.1 403") && refused.contains("(\(perl) (not the file at this path))"), "\(refused)")
        #expect(await harness.stopDaemon() == 0)
    }

    static func run(_ command: [String], in harness: BrokerHarness) async throws -> String {
        let name = harness.root + "/identity-\(UInt64.random(in: 0...UInt64.max))"
        let process = try SpawnedProcess(
            command, environment: harness.environment, stdoutPath: name + ".out", stderrPath: name + ".err")
        #expect(await process.waitForExit(timeout: 30) == 0, "\(command): \(process.stderr)")
        return process.stdout
    }
}
