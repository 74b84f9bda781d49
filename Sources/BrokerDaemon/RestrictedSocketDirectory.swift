import BrokerCore
import BrokerHTTP
import BrokerProtocol

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// The directory restricted sockets are bound in: the main socket's (`$XDG_RUNTIME_DIR/authbroker`),
/// checked once like the main socket's (owned by us, no access for group or other) and then used
/// only through its descriptor, so a swapped path cannot redirect a bind.
struct RestrictedSocketDirectory: Sendable {
    let path: String
    let descriptor: Int32

    /// The directory of `socketPath` (the main socket), created 0700 when missing.
    static func open(mainSocket socketPath: String) throws(DaemonError) -> RestrictedSocketDirectory {
        let path = socketPath.lastIndex(of: "/").map { String(socketPath[..<$0]) } ?? "."
        do throws(PrivateDirectory.Problem) {
            let descriptor = try PrivateDirectories.open(path.isEmpty ? "/" : path, forbidden: 0o077)
            return RestrictedSocketDirectory(path: path, descriptor: descriptor)
        } catch {
            throw .unsafeSocketDirectory(error.description)
        }
    }

    /// Binds `NAME.sock` (bind → chmod 0600 → listen). A path that exists is refused unless
    /// `replacingStale` (a `--persist` socket left by a daemon that died), and even then only a
    /// socket nobody answers on is replaced.
    func bind(_ name: String, replacingStale: Bool) throws(WireError) -> (HTTPListener, RestrictedSocketFile) {
        let fileName = RestrictedSocketName.fileName(name)
        let shown = path + "/" + fileName
        let bindPath = PrivateDirectory.path(in: descriptor, fileName)
        var info = stat()
        if !replacingStale, lstat(bindPath, &info) == 0 {
            throw WireError(
                code: .conflict,
                message: "\(shown) exists and is not one of this daemon's restricted sockets; remove it or choose another name.")
        }
        let listener: HTTPListener
        do { listener = try HTTPListener.unix(path: bindPath) } catch {
            throw WireError(code: .conflict, message: "Cannot create \(shown): \(error)")
        }
        guard lstat(bindPath, &info) == 0 else {
            throw WireError(code: .internal, message: "\(shown) vanished right after it was bound.")
        }
        return (listener, RestrictedSocketFile(path: shown, bindPath: bindPath, dev: UInt64(info.st_dev), ino: UInt64(info.st_ino)))
    }

    /// The file of a stored socket that expired while no daemon ran, left by one that was killed:
    /// removed only if it is a socket nobody answers on.
    func removeStale(_ name: String) throws(WireError) {
        let fileName = RestrictedSocketName.fileName(name)
        do { try HTTPListener.removeStaleSocket(at: PrivateDirectory.path(in: descriptor, fileName)) } catch {
            throw WireError(code: .conflict, message: "Cannot remove \(path)/\(fileName): \(error)")
        }
    }
}

/// One restricted socket's file: removed only while it is still the file we bound.
struct RestrictedSocketFile: Sendable {
    let path: String
    let bindPath: String
    let dev: UInt64
    let ino: UInt64

    func remove() {
        var info = stat()
        guard lstat(bindPath, &info) == 0, UInt64(info.st_dev) == dev, UInt64(info.st_ino) == ino else { return }
        unlink(bindPath)
    }
}
