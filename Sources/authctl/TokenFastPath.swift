/// `authctl [--socket PATH] token NAME [--min-ttl SECONDS]` answered by the daemon with a 200: the
/// token printed as the full CLI prints it (the body without trailing CR/LF, then one newline).
enum TokenFastPath {
    /// The full CLI's timeout for a token (CallerApproval.clientTimeout: a `--confirm` approval
    /// may take 60 s, plus 30 s).
    static let answerTimeoutSeconds = 90
    static let maximumAnswerBytes = 16_384

    struct Request {
        /// NUL-free bytes of each.
        let socketPath: [UInt8]
        let account: [UInt8]
        /// `--min-ttl`'s digits, canonical (no sign, no leading zero) and within 0…86400.
        let minTTL: [UInt8]?

        /// Nil unless the arguments are exactly the fast path's, the name passes the full CLI's
        /// rule, and the socket is one the front may connect to without the full CLI's checks.
        init?(argc: Int, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) {
            var words = (1..<max(argc, 1)).map { argv[$0] }
            var flag: UnsafeMutablePointer<CChar>?
            if words.count >= 2, Self.equal(words[0], "--socket") {
                flag = words[1]
                words.removeFirst(2)
            }
            var minTTL: [UInt8]?
            if words.count == 4, Self.equal(words[2], "--min-ttl"), let value = words[3] {
                guard let seconds = Self.seconds(Self.bytes(UnsafePointer(value))) else { return nil }
                minTTL = seconds
                words.removeLast(2)
            }
            guard words.count == 2, Self.equal(words[0], "token"), let name = words[1],
                let account = AccountName.checked(Self.bytes(UnsafePointer(name))),
                let socketPath = SocketLocation.resolve(flag: flag.map { Self.bytes(UnsafePointer($0)) })
            else { return nil }
            self.socketPath = socketPath
            self.account = account
            self.minTTL = minTTL
        }

        /// The digits when they are a canonical decimal in the full CLI's range for --min-ttl.
        static func seconds(_ digits: [UInt8]) -> [UInt8]? {
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                digits.count == 1 || digits[0] != 48
            else { return nil }
            return digits.reduce(0) { $0 * 10 + Int($1 - 48) } <= 86_400 ? digits : nil
        }

        static func bytes(_ text: UnsafePointer<CChar>) -> [UInt8] {
            Array(UnsafeRawBufferPointer(start: text, count: c_strlen(text)))
        }

        static func equal(_ word: UnsafeMutablePointer<CChar>?, _ expected: StaticString) -> Bool {
            guard let word else { return false }
            let count = c_strlen(word)
            guard count == expected.utf8CodeUnitCount else { return false }
            return UnsafeRawBufferPointer(start: word, count: count).elementsEqual(
                UnsafeRawBufferPointer(start: expected.utf8Start, count: count))
        }
    }

    /// True when the token was printed; false hands the request to the full CLI.
    static func run(_ request: Request) -> Bool {
        guard case .answered(let answer) = ask(request), let token = TokenAnswer.token(in: answer) else { return false }
        var line = token
        line.append(10)
        return Stream.standardOutput.write(line)
    }

    enum Outcome {
        /// No daemon of ours at the socket (nothing there, or another uid's).
        case noDaemon
        /// It closed, timed out or sent more than the front reads.
        case unreadable
        case answered([UInt8])
    }

    /// Sends the token request and reads the whole answer.
    static func ask(_ request: Request) -> Outcome {
        guard let connection = DaemonConnection(path: request.socketPath) else { return .noDaemon }
        defer { connection.close() }
        var wire = Array("GET /v1/accounts/".utf8)
        wire.append(contentsOf: request.account)
        wire.append(contentsOf: "/token".utf8)
        if let minTTL = request.minTTL {
            wire.append(contentsOf: "?min_ttl=".utf8)
            wire.append(contentsOf: minTTL)
        }
        wire.append(contentsOf: " HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n\r\n".utf8)
        guard connection.send(wire), let answer = connection.receiveAnswer(limit: maximumAnswerBytes) else { return .unreadable }
        return .answered(answer)
    }
}

/// The full CLI's account-name rule (BrokerProtocol's AccountName): 1–64 of letters, digits,
/// '-', '_' and '.', not starting with '-' or '.'. Anything else goes to the full CLI, which
/// says what is wrong; the name becomes part of the request target only after this check.
enum AccountName {
    static func checked(_ name: [UInt8]) -> [UInt8]? {
        guard !name.isEmpty, name.count <= 64, name[0] != 45, name[0] != 46 else { return nil }
        for byte in name {
            let letter = (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90)
            guard letter || (byte >= 48 && byte <= 57) || byte == 45 || byte == 95 || byte == 46 else { return nil }
        }
        return name
    }
}

/// BrokerProtocol's SocketPath rule — `--socket` beats `AUTHBROKER_SOCKET` beats
/// `$XDG_RUNTIME_DIR/authbroker/authbroker.sock` — for the locations the front handles itself.
/// Without XDG_RUNTIME_DIR the default is a temp-dir fallback (`authbroker-UID`) that anyone could
/// have created first: the full CLI connects there through its checked directory, so any path
/// whose directory is named `authbroker-…` is left to it.
enum SocketLocation {
    static func resolve(flag: [UInt8]?) -> [UInt8]? {
        let path: [UInt8]
        if let flag, !flag.isEmpty {
            path = flag
        } else if let variable = c_getenv("AUTHBROKER_SOCKET"), c_strlen(variable) > 0 {
            path = TokenFastPath.Request.bytes(variable)
        } else if let runtime = c_getenv("XDG_RUNTIME_DIR"), runtime.pointee == 47 {
            path = TokenFastPath.Request.bytes(runtime) + Array("/authbroker/authbroker.sock".utf8)
        } else {
            return nil
        }
        guard path.count < LibC.socketPathCapacity, !path.contains(0), !inFallbackDirectory(path) else { return nil }
        return path
    }

    static func inFallbackDirectory(_ path: [UInt8]) -> Bool {
        guard let slash = path.lastIndex(of: 47) else { return false }
        let directory = path[..<slash]
        let start = directory.lastIndex(of: 47).map { $0 + 1 } ?? directory.startIndex
        return directory[start...].starts(with: "authbroker-".utf8)
    }
}
