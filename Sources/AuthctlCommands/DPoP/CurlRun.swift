import BrokerProtocol
@preconcurrency import Glibc
import SystemCalls

/// Running curl for `authctl curl`: the header lines go through a pipe curl reads as
/// `-H @/dev/fd/N` (written and closed before curl starts: a pipe holds 64 KiB, so nothing waits).
enum CurlRun {
    static let maximumHeaderBytes = 60 * 1024

    /// Replaces authctl with curl; returns only when curl cannot be run.
    static func exec(_ argv: [String], headers: [String]) throws -> Int32 {
        let pipe = try headerPipe(headers)
        let words: [UnsafeMutablePointer<CChar>?] = (argv + ["-H", "@/dev/fd/\(pipe)"]).map { strdup($0) } + [nil]
        execvp("curl", words)
        Output.error("cannot run 'curl': \(Errno.current); install curl or put it on PATH")
        return ExitCode.cannotRun
    }

    /// Runs curl to its end with its stdout and the response headers (`-D`) in unlinked files.
    static func attempt(_ argv: [String], headers: [String], temporaryDirectory: String) throws -> CurlAttempt {
        let pipe = try headerPipe(headers)
        defer { close(pipe) }
        let output = try unlinkedFile(in: temporaryDirectory)
        let dump = try unlinkedFile(in: temporaryDirectory)
        // Curl shows no progress meter when its stdout is a terminal; the file must not change that.
        let quiet = isatty(STDOUT_FILENO) == 1 ? ["--no-progress-meter"] : []
        let words = argv + ["-H", "@/dev/fd/\(pipe)", "-D", "/dev/fd/\(dump)"] + quiet
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output, STDOUT_FILENO)
        let cWords: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { cWords.forEach { free($0) } }
        var pid: pid_t = 0
        let started = posix_spawnp(&pid, "curl", &actions, nil, cWords, environ)
        guard started == 0 else {
            close(output)
            close(dump)
            throw CurlFailure("cannot run 'curl': \(Errno(started)); install curl or put it on PATH")
        }
        var status: Int32 = 0
        _ = SystemCall.retryingInterrupts { waitpid(pid, &status, 0) }
        return CurlAttempt(exitStatus: DetachedChild.decode(waitStatus: status), output: output, headerDump: dump)
    }

    /// A pipe's read end holding `headers`, one per line; its write end is closed.
    private static func headerPipe(_ headers: [String]) throws -> Int32 {
        var bytes = Array((headers.joined(separator: "\n") + "\n").utf8)
        defer { bytes.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        guard bytes.count <= maximumHeaderBytes else {
            throw CurlFailure("the token is too large to hand to curl (\(bytes.count) bytes)")
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CurlFailure("cannot create a pipe for curl: \(Errno.current)") }
        let failure = bytes.withUnsafeBytes { raw in SystemCall.writeAll(raw) { write(fds[1], $0.baseAddress, $0.count) } }
        close(fds[1])
        if let failure {
            close(fds[0])
            throw CurlFailure("cannot write the headers for curl: \(failure)")
        }
        return fds[0]
    }

    /// A 0600 file with no name (removed at once): only this process and curl, through the
    /// descriptor it inherits, can reach it.
    private static func unlinkedFile(in directory: String) throws -> Int32 {
        var template = Array((directory + "/authctl-curl-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CurlFailure("cannot create a temporary file in \(directory): \(Errno.current)") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }
}

/// A failure of `authctl curl` itself (exit 1), saying what to do.
struct CurlFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One finished curl run whose output and response headers are held in files.
struct CurlAttempt {
    static let maximumHeaderDump = 256 * 1024
    let exitStatus: Int32
    let output: Int32
    let headerDump: Int32

    /// The resource server's nonce when the last response is its nonce challenge (RFC 9449 §9).
    var nonceChallenge: String? { headers.flatMap(NonceChallenge.nonce(in:)) }

    /// The step-up challenge when the last response is a 403 `insufficient_scope`.
    var stepUpChallenge: BearerChallenge? { headers.flatMap(NonceChallenge.stepUp(in:)) }

    /// curl's header dump (`-D`), nil when empty.
    private var headers: String? {
        var bytes = [UInt8](repeating: 0, count: Self.maximumHeaderDump)
        let count = bytes.withUnsafeMutableBytes { raw in
            SystemCall.retryingInterrupts { pread(headerDump, raw.baseAddress, raw.count, 0) }
        }
        guard count > 0 else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    /// Copies the held output to stdout; curl's exit status.
    func finish() -> Int32 {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                SystemCall.retryingInterrupts { pread(output, raw.baseAddress, raw.count, offset) }
            }
            guard count > 0 else { break }
            offset += off_t(count)
            _ = buffer[..<count].withUnsafeBytes { raw in
                SystemCall.writeAll(raw) { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            }
        }
        discard()
        return exitStatus
    }

    func discard() {
        close(output)
        close(headerDump)
    }
}
