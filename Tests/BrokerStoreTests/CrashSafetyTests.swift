import BrokerCrypto
import Foundation
import Testing
import TestSupport

@testable import BrokerStore

/// Kills a child that commits token sets in a loop (`vault-torture`) with SIGKILL at random
/// moments, 20 times; after each kill the database must pass `integrity_check` and the last token
/// set the child reported as committed (or the one after it) must open and match in every field.
@Suite struct CrashSafetyTests {
    private func tortureBinary() throws -> String {
        try ProductBinary.path("vault-torture")
    }

    @Test func sigkilledWriterNeverLosesOrTearsACommittedTokenSet() async throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let binary = try tortureBinary()
        var lastPrinted = 0
        for round in 1...20 {
            let wanted = Int.random(in: 1...6)
            let printed = try await runAndKill(
                binary, arguments: [fixture.databasePath, fixture.keyPath, "10"], afterLines: wanted)
            try #require(printed.count >= wanted, "round \(round): the child printed only \(printed) before exiting")
            let committed = try #require(Int(printed.last!), "round \(round): bad line \(printed.last!)")
            #expect(committed > lastPrinted, "round \(round): the counter went backwards")
            lastPrinted = committed

            let vault = try fixture.open()
            try vault.integrityCheck()
            let account = try #require(try vault.account(named: "torture"))
            let tokens = try #require(try vault.loadTokens(accountID: account.id), "round \(round): no tokens")
            let stored = Int(tokens.obtainedAt)
            // The kill may land after the next commit but before its line was printed.
            #expect(stored == committed || stored == committed + 1, "round \(round): stored \(stored), printed \(committed)")
            #expect(tokens.accessToken.revealString() == "access-\(stored)")
            #expect(tokens.refreshToken?.revealString() == "refresh-\(stored)")
            #expect(tokens.idToken?.revealString() == "id-\(stored)")
            #expect(tokens.expiresAt == Double(stored + 3600))
        }
    }

    /// Starts the child, reads its stdout until `afterLines` lines have arrived (or EOF), then
    /// SIGKILLs it, reaps it, and returns every line it printed. Runs on its own thread: reading a pipe blocks.
    private func runAndKill(_ binary: String, arguments: [String], afterLines: Int) async throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let descriptor = output.fileHandleForReading.fileDescriptor
        let lines: [String] = await withCheckedContinuation { continuation in
            Thread {
                let reader = LineReader(descriptor: descriptor)
                var lines = reader.read(lines: afterLines)
                // A little jitter so the kill lands at varied points of the next commit.
                usleep(UInt32.random(in: 0...3000))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                // Whatever it printed before dying is still in the pipe: the last line is the last commit it reported.
                lines += reader.read(lines: .max)
                continuation.resume(returning: lines)
            }.start()
        }
        return lines
    }
}

/// Reads complete lines from a descriptor with blocking `read(2)`; a partial line waits for the next call.
private final class LineReader {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) { self.descriptor = descriptor }

    func read(lines wanted: Int) -> [String] {
        var lines: [String] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while lines.count < wanted {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            buffer += chunk[..<count]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
        }
        return lines
    }
}
