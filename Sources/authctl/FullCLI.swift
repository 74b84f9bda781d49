/// authctl-full, the whole command line (Sources/authctl-full), installed next to this front.
enum FullCLI {
    static let fileName: StaticString = "/authctl-full"

    /// Runs authctl-full in this process with the same arguments; returns only when it cannot
    /// (then with a message saying what is wrong and exit status 1).
    static func replaceProcess(
        argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
        environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        tokenRequest: TokenFastPath.Request? = nil
    ) -> Int32 {
        guard var path = ownDirectory() else {
            Stream.standardError.write("authctl: cannot find its own directory (/proc/self/exe); run authctl-full directly\n")
            return 1
        }
        path.append(contentsOf: UnsafeRawBufferPointer(start: fileName.utf8Start, count: fileName.utf8CodeUnitCount))
        path.append(0)
        let code: Int32 = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { name in
                _ = c_execve(name.baseAddress, UnsafePointer(argv), UnsafePointer(environment))
                return LibC.errno
            }
        }
        path.removeLast()
        if code == LibC.enoent {
            if let tokenRequest { return LoneFront.tokenFailure(tokenRequest, fullPath: path) }
            return LoneFront.answer(arguments(argv), fullPath: path)
        }
        var message = Array("authctl: cannot run ".utf8)
        message.append(contentsOf: path)
        message.append(contentsOf: ": ".utf8)
        if let text = c_strerror(code) {
            message.append(contentsOf: UnsafeRawBufferPointer(start: text, count: c_strlen(text)))
        }
        message.append(contentsOf: " (authctl and authctl-full are installed in the same directory; reinstall authbroker)\n".utf8)
        Stream.standardError.write(message)
        return 1
    }

    /// argv[1…] as byte arrays.
    private static func arguments(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> [[UInt8]] {
        var words: [[UInt8]] = []
        guard argv[0] != nil else { return words }
        var index = 1
        while let word = argv[index] {
            words.append(TokenFastPath.Request.bytes(UnsafePointer(word)))
            index += 1
        }
        return words
    }

    /// The directory of the running executable, without a trailing slash.
    private static func ownDirectory() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { c_readlink("/proc/self/exe", $0.baseAddress, $0.count) }
        guard count > 0, count < buffer.count else { return nil }
        var end = count
        while end > 0, buffer[end - 1] != 47 { end -= 1 }
        guard end > 1 else { return end == 1 ? [] : nil }  // "/authctl": the root directory
        return Array(buffer[0..<(end - 1)])
    }
}

/// Whole writes to a file descriptor.
struct Stream {
    let fd: Int32
    static let standardOutput = Stream(fd: 1)
    static let standardError = Stream(fd: 2)

    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write($0) }
    }

    @discardableResult
    func write(_ text: StaticString) -> Bool {
        write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = c_write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, LibC.errno == LibC.eintr { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
