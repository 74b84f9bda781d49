import Foundation

/// The notify hook of the caller-policy tests: one line per notification,
/// `EVENT ACCOUNT CODE EXE`, appended to a file the test reads as the user reads the notification.
struct NotifiedCodes {
    let path: String

    init(_ harness: BrokerHarness) { path = harness.root + "/notified.log" }

    /// The daemon's `--notify-command` writing the line.
    var daemonArguments: [String] {
        [
            "--notify-command",
            #"printf '%s %s %s %s\n' "$AUTHBROKER_EVENT" "$AUTHBROKER_ACCOUNT" "$AUTHBROKER_APPROVAL_CODE" "$AUTHBROKER_EXE" >> '"#
                + path + "'",
        ]
    }

    var lines: [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The code of the `number`-th notification of `event` (nil: any; 1-based), once the hook wrote
    /// it (bounded wait).
    func code(_ event: String?, number: Int = 1) async -> String? {
        var found: String?
        _ = await SpawnedProcess.eventually(timeout: 30) {
            let matching = lines.filter { line in event.map { line.hasPrefix($0 + " ") } ?? true }
            guard matching.count >= number else { return false }
            found = matching[number - 1].split(separator: " ").dropFirst(2).first.map(String.init)
            return true
        }
        return found
    }
}

extension BrokerHarness {
    /// A raw request from this test process (a same-uid program that is not authctl) with curl:
    /// the HTTP status and the body.
    func curl(_ method: String, _ path: String, body: String? = nil, headers: [String] = []) async throws -> (
        status: Int, body: String
    ) {
        let name = root + "/curl-\(UInt64.random(in: 0...UInt64.max))"
        var command = ["/usr/bin/curl", "-s", "-o", name + ".body", "-w", "%{http_code}", "--unix-socket", socket, "-X", method]
        for header in headers { command += ["-H", header] }
        if let body { command += ["-H", "Content-Type: application/json", "--data-binary", body] }
        command.append("http://localhost" + path)
        let process = try SpawnedProcess(command, environment: environment, stdoutPath: name + ".out", stderrPath: name + ".err")
        _ = await process.waitForExit(timeout: 30)
        let answer = (try? String(contentsOfFile: name + ".body", encoding: .utf8)) ?? ""
        return (Int(process.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, answer)
    }
}
