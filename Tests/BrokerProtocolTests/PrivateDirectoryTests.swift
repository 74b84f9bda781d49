import BrokerProtocol
import Foundation
import Glibc
import TestSupport
import Testing

/// The descriptor-checked directories of docs/security.md (socket directory, temp fallback,
/// state directory).
@Suite struct PrivateDirectoryTests {
    static func makeDirectory(_ path: String, mode: mode_t) {
        mkdir(path, 0o700)
        chmod(path, mode)
    }

    static func withScratch(_ body: (String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try body(directory.path)
    }

    @Test func anOwnPrivateDirectoryOpensAndIsUsableThroughItsDescriptor() throws {
        try Self.withScratch { root in
            let fd = try PrivateDirectory.open(root, forbidden: 0o077).get()
            defer { close(fd) }
            let file = open(PrivateDirectory.path(in: fd, "probe"), O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
            #expect(file >= 0)
            close(file)
            #expect(access(root + "/probe", F_OK) == 0)
        }
    }

    @Test func looseModesForeignOwnersFilesAndMissingDirectoriesAreRefused() throws {
        try Self.withScratch { root in
            let open = root + "/open"
            Self.makeDirectory(open, mode: 0o755)
            #expect(
                PrivateDirectory.open(open, forbidden: 0o077).failure?.description
                    == "'\(open)' has mode 755; run: chmod 700 '\(open)'")
            // The state directory rule: no group/other write.
            #expect(PrivateDirectory.open(open, forbidden: 0o022).isSuccess)
            let shared = root + "/shared"
            Self.makeDirectory(shared, mode: 0o1777)
            #expect(PrivateDirectory.open(shared, forbidden: 0o022).failure == .tooOpen(shared, mode: 0o1777, fix: "chmod 700"))
            #expect(
                PrivateDirectory.open(open, uid: getuid() + 1, forbidden: 0o077).failure
                    == .wrongOwner(open, owner: getuid(), expected: getuid() + 1))
            #expect(PrivateDirectory.open(root + "/none", forbidden: 0o077).failure == .missing(root + "/none"))
            let file = root + "/file"
            close(Glibc.open(file, O_CREAT | O_WRONLY, 0o600))
            #expect(PrivateDirectory.open(file, forbidden: 0o077).failure == .notADirectory(file))
        }
    }

    /// A private directory inside one that others may write (and is not sticky): another user
    /// could rename it away and put their own in its place after any check by path.
    @Test func aDirectoryUnderAWritableNonStickyParentIsRefused() throws {
        try Self.withScratch { root in
            let parent = root + "/commons"
            Self.makeDirectory(parent, mode: 0o777)
            let inner = parent + "/mine"
            Self.makeDirectory(inner, mode: 0o700)
            #expect(
                PrivateDirectory.open(inner, forbidden: 0o077).failure == .untrustedAncestor(parent, owner: getuid(), mode: 0o777)
            )
            chmod(parent, 0o1777)  // sticky, like /tmp: entries of others cannot be renamed
            #expect(PrivateDirectory.open(inner, forbidden: 0o077).isSuccess)
        }
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to chown"))
    func aDirectoryOfAnotherUserIsRefusedEvenWith0700() throws {
        try Self.withScratch { root in
            let theirs = root + "/authbroker-0"
            Self.makeDirectory(theirs, mode: 0o700)
            chown(theirs, 65534, 65534)
            #expect(PrivateDirectory.open(theirs, forbidden: 0o077).failure == .wrongOwner(theirs, owner: 65534, expected: 0))
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    var isSuccess: Bool {
        if case .success(let fd as Int32) = self { close(fd) }
        if case .success = self { return true }
        return false
    }
}
