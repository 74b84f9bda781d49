import Foundation

/// A small tmpfs mounted for one test, to run the token store out of disk space for real
/// (`ENOSPC` → `SQLITE_FULL`). Mounting needs root (CAP_SYS_ADMIN): `mount` returns nil when it
/// cannot, and the test skips. `fill()` takes every free block with a filler file, `free()` removes
/// it; the filesystem is unmounted by `unmount()` (call it in a `defer`).
public final class TinyFilesystem: Sendable {
    public let path: String
    private let directory: TemporaryDirectory
    private var filler: String { path + "/filler" }

    private init(directory: TemporaryDirectory) {
        self.directory = directory
        path = directory.path
    }

    /// Whether this process can mount one (root with CAP_SYS_ADMIN); tests skip when not.
    public static let canMount: Bool = {
        guard let probe = mount(kilobytes: 64) else { return false }
        probe.unmount()
        return true
    }()

    /// Mounts a tmpfs of `kilobytes` on a fresh directory; nil when this process cannot mount.
    public static func mount(kilobytes: Int) -> TinyFilesystem? {
        guard getuid() == 0, let directory = try? TemporaryDirectory(prefix: "authbroker-tmpfs") else { return nil }
        let options = "size=\(kilobytes)k,mode=0700"
        guard Glibc.mount("tmpfs", directory.path, "tmpfs", 0, options) == 0 else {
            directory.remove()
            return nil
        }
        return TinyFilesystem(directory: directory)
    }

    /// Writes a filler file until the filesystem is full (`ENOSPC`).
    public func fill() throws {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        while true {
            let written = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < block.count { break }
        }
        // A last partial page may be left; single bytes take what remains of it.
        var byte: UInt8 = 0
        while write(fd, &byte, 1) == 1 {}
    }

    /// Gives the filler's space back.
    public func free() { unlink(filler) }

    public func unmount() {
        umount2(path, Int32(MNT_DETACH))
        directory.remove()
    }
}
