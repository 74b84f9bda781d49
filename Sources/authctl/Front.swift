// authctl's front, in Embedded Swift: `authctl token NAME` is what scripts, git and kubectl start
// a process for, and a Swift runtime's start-up alone costs more than the whole exchange with the
// daemon (docs/BENCHMARKS.md, "authctl token against the floor of any client"). Embedded Swift
// has no runtime metadata, so this binary starts like a C program.
//
// The contract is narrow on purpose: the front answers only the success path of exactly
// `authctl [--socket PATH] token NAME [--min-ttl SECONDS]` — and only after the same checks the
// full CLI makes. For
// anything else (another command or option, an odd name or socket location, a daemon that is not
// ours, any answer but a well-formed 200) it runs the full CLI, authctl-full next to it, with the
// same arguments, which does everything as before: messages, exit codes, the temp-dir socket
// checks. A token request is a GET, so one that was already sent is safe to send again.

/// SwiftPM renames an executable's entry point to `<module>_main` (for testable executables) and
/// links `main` to it; the C `main` signature hands over the environment for `execve`.
@_cdecl("authctl_main")
func authctlMain(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    let request = TokenFastPath.Request(argc: Int(argc), argv: argv)
    if let request, TokenFastPath.run(request) {
        return 0
    }
    return FullCLI.replaceProcess(argv: argv, environment: environment, tokenRequest: request)
}
