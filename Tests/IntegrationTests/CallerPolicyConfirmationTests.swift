import Foundation
import TestSupport
import Testing

/// A program that can talk to the socket cannot approve itself or loosen its own caller policy:
/// both need the one-time code the daemon shows only through the notification (here the notify
/// hook's file, `NotifiedCodes`), never on the socket or in its log (docs/security.md, "Caller
/// policy"). The real daemon and authctl against the mock.
@Suite(.serialized) struct CallerPolicyConfirmationTests {
    static func start() async throws -> (BrokerHarness, NotifiedCodes, allowed: String, copy: String) {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let (allowed, copy) = try CallerPolicyTests.programs(harness)
        let codes = NotifiedCodes(harness)
        await harness.stopDaemon()
        try await harness.startDaemon(codes.daemonArguments)
        return (harness, codes, allowed, copy)
    }

    @Test(.timeLimit(.minutes(3)))
    func aWaitingProgramCannotApproveItselfAndTheNotifiedCodeApprovesIt() async throws {
        let (harness, codes, allowed, _) = try await Self.start()
        #expect(
            try await harness.authctl(["account", "update", "work", "--confirm"]).status == 0, "a first policy needs no code")
        let waiting = try harness.spawnAuthctl(["token", "work"])
        let code = try #require(await codes.code("approval_needed"), "the hook got no code: \(codes.lines)\n\(harness.daemonLog)")
        #expect(codes.lines.first == "approval_needed work \(code) \(allowed)")

        // The waiting program's own tries, as any same-uid program makes them: refused.
        let listed = try await harness.curl("GET", "/v1/approvals")
        #expect(
            listed.status == 200 && listed.body.contains("\"pid\":\(waiting.pid)") && !listed.body.contains(code), "\(listed)")
        let bare = try await harness.curl("POST", "/v1/approvals", body: #"{"account":"work"}"#)
        #expect(bare.status == 403 && bare.body.contains("confirmation_required") && !bare.body.contains(code), "\(bare)")
        let wrong = code == "2222-2222" ? "3333-3333" : "2222-2222"
        let guessed = try await harness.curl("POST", "/v1/approvals", body: #"{"account":"work","code":"\#(wrong)"}"#)
        #expect(
            guessed.status == 403 && guessed.body.contains("confirmation_failed") && guessed.body.contains("4 tries left"),
            "\(guessed)")
        let cli = try await harness.authctl(["approve", "work", "--code", wrong])
        #expect(cli.status == 1 && cli.stderr.contains("3 tries left"), "\(cli)")
        let noCode = try await harness.authctl(["approve", "work"])  // no terminal here: told what to do
        #expect(noCode.status == 77 && noCode.stderr.contains("authctl approve work --code CODE"), "\(noCode)")
        #expect(waiting.isRunning, "approved without the code: \(waiting.stdout)")
        #expect(try await harness.authctl(["approvals"]).stdout.contains("work\t\(allowed)\tpid \(waiting.pid)"))

        let approve = try await harness.authctl(["approve", "work", "--code", code.lowercased()])
        #expect(approve.status == 0 && approve.stderr.contains("approved \(allowed)"), "\(approve)")
        #expect(await waiting.waitForExit(timeout: 30) == 0, "\(waiting.stderr)")
        #expect(!waiting.stdout.isEmpty)
        #expect(!harness.daemonLog.contains(code) && !harness.daemonLog.contains(code.replacingOccurrences(of: "-", with: "")))
        #expect(harness.daemonLog.contains("caller approved until the daemon restarts"), "\(harness.daemonLog)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func fiveWrongCodesEndTheWaitAndOnlyTheNextWaitsCodeApproves() async throws {
        let (harness, codes, _, _) = try await Self.start()
        #expect(try await harness.authctl(["account", "update", "work", "--confirm"]).status == 0)
        let waiting = try harness.spawnAuthctl(["token", "work"])
        let code = try #require(await codes.code("approval_needed"))
        let wrong = code == "2222-2222" ? "3333-3333" : "2222-2222"
        var answers: [String] = []
        for _ in 0..<5 {
            answers.append(try await harness.curl("POST", "/v1/approvals", body: #"{"account":"work","code":"\#(wrong)"}"#).body)
        }
        #expect(answers.last?.contains("Too many wrong codes") == true, "\(answers)")
        // The burnt wait ended (approval_required); authctl's front hands that answer to authctl-full,
        // which asks again: a new wait, with a new code in a new notification.
        let next = try #require(await codes.code("approval_needed", number: 2), "\(harness.daemonLog)")
        #expect(harness.daemonLog.contains("caller approval: abandoned"), "\(harness.daemonLog)")
        #expect(next != code)
        let late = try await harness.authctl(["approve", "work", "--code", code])
        #expect(late.status == 1 && late.stderr.contains("not the code"), "the burnt code approved: \(late)")
        #expect(waiting.isRunning)
        #expect(try await harness.authctl(["approve", "work", "--code", next]).status == 0)
        #expect(await waiting.waitForExit(timeout: 30) == 0, "\(waiting.stderr)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func aProgramRefusedByAllowExeCannotAddItselfAndThePolicyStays() async throws {
        let (harness, codes, allowed, copy) = try await Self.start()
        #expect(
            try await harness.authctl(["account", "update", "work", "--allow-exe", allowed]).status == 0,
            "a first policy needs no code")
        let policy = { try await harness.authctl(["account", "show", "work", "--json"]).stdout.filter { !$0.isWhitespace } }
        let before = try await policy()
        #expect(before.contains("\"allow_exe\":[\"\(allowed)\"]"), "\(before)")

        // The refused copy adds itself: refused, a code goes to the notification only, nothing changes.
        let widen = ["account", "update", "work", "--allow-exe", allowed, "--allow-exe", copy]
        let asked = try await harness.authctl(widen, authctlPath: copy)
        #expect(asked.status == 77 && asked.stderr.contains("needs the one-time code"), "\(asked)")
        let code = try #require(await codes.code("policy_change"), "\(codes.lines)\n\(harness.daemonLog)")
        #expect(codes.lines.contains("policy_change work \(code) \(copy)-full"), "who asks, as /proc names it: \(codes.lines)")
        #expect(!asked.stderr.contains(code))
        let wrong = code == "2222-2222" ? "3333-3333" : "2222-2222"
        let guessed = try await harness.authctl(widen + ["--code", wrong], authctlPath: copy)
        #expect(guessed.status == 1 && guessed.stderr.contains("4 tries left"), "\(guessed)")
        #expect(try await policy() == before, "the policy changed without the code")
        let refused = try await harness.authctl(["token", "work"], authctlPath: copy)
        #expect(refused.status == 1 && refused.stderr.contains("not \(copy)"), "\(refused)")

        // Tightening needs no code: keeping only entries the list had.
        #expect(try await harness.authctl(["account", "update", "work", "--allow-exe", allowed, "--confirm"]).status == 0)
        #expect(
            try await harness.authctl(["account", "update", "work", "--no-confirm"]).status == 77, "turning --confirm off loosens"
        )

        // The user, with the code of the notification their own change caused: applied and logged.
        let own = ["account", "update", "work", "--allow-exe", allowed, "--allow-exe", copy, "--confirm"]
        #expect(try await harness.authctl(own).status == 77)
        let second = try #require(await codes.code("policy_change", number: 3))
        let doneRun = try await harness.authctl(own + ["--code", second])
        #expect(doneRun.status == 0 && doneRun.stderr.contains("tokens are kept"), "\(doneRun)")
        #expect(try await policy().contains("\"allow_exe\":[\"\(allowed)\",\"\(copy)\"]"))
        let lines = harness.daemonLog.split(separator: "\n")
        let policyLines = lines.filter { $0.contains("info: account policy changed account=work ") }
        let updateLines = lines.filter { $0.contains("info: account updated account=work ") }
        // The first policy, the tightening and the confirmed change: each names its keys and who.
        #expect(policyLines.count == 3 && updateLines.count == 3, "\(harness.daemonLog)")
        let done = "changed=allow_exe pid=\(doneRun.pid) exe=\(allowed)-full"
        #expect(policyLines.last?.hasSuffix(done) == true, "\(policyLines)")
        #expect(
            updateLines.last?.hasSuffix("changed=allow_exe tokens=kept pid=\(doneRun.pid) exe=\(allowed)-full") == true,
            "\(updateLines)")
        #expect(policyLines.allSatisfy { $0.contains(" pid=") && $0.contains(" exe=") && !$0.contains(copy) })
        for shown in [code, second] { #expect(!harness.daemonLog.contains(shown)) }

        // Removing the account drops its policy with it (and its tokens: a new login is needed): logged with who.
        let removed = try await harness.authctl(["account", "remove", "work"], authctlPath: copy)
        #expect(removed.status == 0, "\(removed)")
        let removal = harness.daemonLog.split(separator: "\n").first { $0.contains("info: account removed account=work ") }
        #expect(
            removal?.hasSuffix("policy=allow_exe,confirm_callers pid=\(removed.pid) exe=\(copy)-full") == true,
            "\(harness.daemonLog)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func aHostileExecutableNameIsShownEscaped() async throws {
        let (harness, codes, _, _) = try await Self.start()
        let directory = harness.root + "/evil\u{1B}[2J\u{07}dir"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let hostile = try ProductBinary.copyAuthctl(to: directory)
        let escaped = harness.root + "/evil\\x1b[2J\\x07dir/authctl"
        #expect(try await harness.authctl(["account", "update", "work", "--confirm"]).status == 0)
        let waiting = try harness.spawnAuthctl(["token", "work"], authctlPath: hostile)
        _ = try #require(await codes.code("approval_needed"))
        let listed = try await harness.authctl(["approvals"])
        #expect(listed.stdout.contains("work\t\(escaped)\tpid \(waiting.pid)") && !listed.stdout.contains("\u{1B}"), "\(listed)")
        #expect(codes.lines.first?.hasSuffix(" \(escaped)") == true, "\(codes.lines)")
        let denied = try await harness.authctl(["approve", "work", "--deny"])
        #expect(
            denied.status == 0 && denied.stderr.contains("denied \(escaped)") && !denied.stderr.contains("\u{1B}"), "\(denied)")
        #expect(await waiting.waitForExit(timeout: 30) == 1)
        #expect(!harness.daemonLog.contains("\u{1B}") && harness.daemonLog.contains(escaped), "\(harness.daemonLog)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// `authctl ARGS` on a pseudo-terminal (util-linux `script`, as `LoginPasteTests` does): the test
    /// types into script's stdin, which the terminal passes on as keystrokes.
    static func onATerminal(_ arguments: [String], _ harness: BrokerHarness) throws -> SpawnedProcess {
        let line = ([try BrokerHarness.binary("authctl"), "--socket", harness.socket] + arguments).map { "'\($0)'" }.joined(
            separator: " ")
        let output = harness.root + "/tty-\(UInt64.random(in: 0...UInt64.max)).out"
        var environment = harness.environment
        environment["SHELL"] = "/bin/bash"
        return try SpawnedProcess(
            ["script", "-qec", line, "/dev/null"], environment: environment, stdoutPath: output, stderrPath: output,
            keepStdinOpen: true)
    }

    @Test(.timeLimit(.minutes(3)))
    func onATerminalAuthctlAsksForTheCodeOfTheNotification() async throws {
        let (harness, codes, allowed, copy) = try await Self.start()
        #expect(try await harness.authctl(["account", "update", "work", "--allow-exe", allowed]).status == 0)

        // A loosening: the daemon answers confirmation_required and sends a code; authctl asks for it.
        let update = try Self.onATerminal(["account", "update", "work", "--allow-exe", allowed, "--allow-exe", copy], harness)
        let asked = await SpawnedProcess.eventually { update.stdout.contains("Code shown in the notification: ") }
        #expect(asked, "\(update.stdout)")
        let code = try #require(await codes.code("policy_change"))
        try update.process.writeToStdin(code + "\n")
        #expect(await update.waitForExit(timeout: 30) == 0, "\(update.stdout)")
        #expect(update.stdout.contains("tokens are kept"), "\(update.stdout)")

        // An approval: asked before anything is sent.
        #expect(
            try await harness.authctl(["account", "update", "work", "--allow-exe", allowed, "--allow-exe", copy, "--confirm"])
                .status == 0)
        let waiting = try harness.spawnAuthctl(["token", "work"], authctlPath: copy)
        let approvalCode = try #require(await codes.code("approval_needed"))
        let approve = try Self.onATerminal(["approve", "work"], harness)
        #expect(
            await SpawnedProcess.eventually { approve.stdout.contains("Code shown in the notification: ") }, "\(approve.stdout)")
        try approve.process.writeToStdin(approvalCode.lowercased() + "\n")
        #expect(await approve.waitForExit(timeout: 30) == 0, "\(approve.stdout)")
        #expect(await waiting.waitForExit(timeout: 30) == 0, "\(waiting.stderr)")
        #expect(await harness.stopDaemon() == 0)
    }
}
