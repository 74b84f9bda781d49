import Foundation
import TestSupport
import Testing

/// docs/completions/check-bash-completion.sh (also `make check-completions`) in the suite: the
/// bash completion offers what each command takes, account names and socket names from a
/// stand-in authctl, and curl's options after `authctl curl NAME`.
@Suite struct CompletionScriptTests {
    @Test func theBashCompletionChecksPass() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/bin/bash"), "bash is needed")
        let script = ChildProcess.repositoryRoot + "/docs/completions/check-bash-completion.sh"
        let run = try await Subprocess.run(["/bin/bash", script], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(60))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("all completion checks passed"), "\(run.stdout)")
    }
}
