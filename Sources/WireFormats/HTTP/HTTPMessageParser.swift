/// The start line of one kind of message (request line or status line) and how it is framed.
/// Lets one incremental parser serve both requests and responses.
protocol HTTPMessageKind: Sendable {
    associatedtype Message
    var version: HTTPVersion { get }
    /// The error thrown when the start line exceeds the limit.
    static func startLineTooLong(limit: Int) -> HTTPError
    mutating func parseStartLine(_ line: ArraySlice<UInt8>) throws(HTTPError)
    func bodyMode(_ framing: HTTPFraming, limits: HTTPLimits) throws(HTTPError) -> HTTPFraming.BodyMode
    func message(headers: HTTPHeaders, body: [UInt8]) -> Message
}

/// Incremental HTTP/1.1 message parser shared by `HTTPRequestParser` and `HTTPResponseParser`.
///
/// Bytes are appended as they arrive, split anywhere; `next()` returns complete messages in
/// order (pipelining) and nil when more bytes are needed. After an error the parser stays failed:
/// the connection must be closed, since the message boundary is lost.
struct HTTPMessageParser<Kind: HTTPMessageKind>: Sendable {
    private enum State: Sendable {
        case startLine
        case headers
        case body(remaining: Int)
        case chunked(HTTPChunkedDecoder)
        case untilClose
        case failed(HTTPError)
    }

    /// RFC 9112 §2.2 lets a server skip empty lines before a request line; a few are plenty.
    private static var maxLeadingEmptyLines: Int { 4 }

    let limits: HTTPLimits
    var kind: Kind
    private var buffer: [UInt8] = []
    private var position = 0
    private var scan = 0
    private var state: State = .startLine
    private var headers = HTTPHeaders()
    private var headerBytes = 0
    private var framing = HTTPFraming()
    private var body: [UInt8] = []
    private var leadingEmptyLines = 0
    private var inputClosed = false
    /// Framing facts of the message most recently returned by `next()`.
    private(set) var lastFraming = HTTPFraming()
    private(set) var lastBodyMode = HTTPFraming.BodyMode.none

    init(kind: Kind, limits: HTTPLimits) {
        self.kind = kind
        self.limits = limits
    }

    /// True when bytes of a message not yet complete are buffered.
    var hasPartialMessage: Bool {
        if case .startLine = state { return position < buffer.count }
        return true
    }

    /// True when the head of the current message asked for `100-continue` and its body is still due.
    var awaitsBodyWithContinue: Bool {
        switch state {
        case .body, .chunked: framing.expectContinue
        default: false
        }
    }

    mutating func append<C: Collection<UInt8>>(_ bytes: C) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// What both socket readers pass (a slice of their receive buffer). Concrete, so the copy is
    /// specialized here: the generic version called from another module runs unspecialized and
    /// resolves `C`'s associated types at run time — a third of `authctl token`'s own instructions.
    mutating func append(_ bytes: ArraySlice<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Tells the parser the peer closed its side: a pending message is now truncated, or complete
    /// if its body runs until close.
    mutating func finishInput() { inputClosed = true }

    /// The message whose head has arrived, with the body decoded so far, for a reader that stops
    /// an open-ended body (an event stream) on purpose; nil before the end of the head. The parser
    /// is done afterwards (the connection is not reusable).
    /// Bytes of the current message's body decoded so far.
    var bodyBytesSoFar: Int { body.count }

    mutating func cutShort() -> Kind.Message? {
        switch state {
        case .body, .chunked, .untilClose: break
        case .startLine, .headers, .failed: return nil
        }
        let message = kind.message(headers: headers, body: body)
        state = .failed(.truncated)
        return message
    }

    mutating func next() throws(HTTPError) -> Kind.Message? {
        do {
            return try advance()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func advance() throws(HTTPError) -> Kind.Message? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .startLine:
                let limit = limits.maxStartLineBytes
                guard let line = try nextLine(limit: limit, tooLong: Kind.startLineTooLong(limit: limit)) else {
                    return try needMore(cleanBoundary: position == buffer.count)
                }
                if line.isEmpty {
                    leadingEmptyLines += 1
                    if leadingEmptyLines > Self.maxLeadingEmptyLines { throw .malformed("empty lines instead of a start line") }
                    continue
                }
                try kind.parseStartLine(buffer[line])
                state = .headers
            case .headers:
                guard let line = try headerLine() else { return try needMore(cleanBoundary: false) }
                if !line.isEmpty {
                    try addField(buffer[line])
                } else if let message = try endOfHead() {
                    return message
                }
            case .body(let remaining):
                let available = min(remaining, buffer.count - position)
                body.append(contentsOf: buffer[position..<(position + available)])
                position += available
                if available == remaining { return complete() }
                state = .body(remaining: remaining - available)
                return try needMore(cleanBoundary: false)
            case .chunked(var decoder):
                let done = try decoder.decode(buffer, position: &position, into: &body)
                state = .chunked(decoder)
                if done { return complete() }
                return try needMore(cleanBoundary: false)
            case .untilClose:
                if body.count + buffer.count - position > limits.maxBodyBytes {
                    throw .bodyTooLarge(limit: limits.maxBodyBytes)
                }
                body.append(contentsOf: buffer[position...])
                position = buffer.count
                return inputClosed ? complete() : nil
            }
        }
    }

    /// The next line of the header section, counted against the header-section limit.
    private mutating func headerLine() throws(HTTPError) -> Range<Int>? {
        let budget = limits.maxHeaderBytes - headerBytes
        let limit = limits.maxHeaderBytes
        guard let line = try nextLine(limit: max(budget - 2, 0), tooLong: .headersTooLarge("header section over \(limit) bytes"))
        else { return nil }
        headerBytes += line.count + 2
        return line
    }

    private mutating func addField(_ line: ArraySlice<UInt8>) throws(HTTPError) {
        guard headers.fields.count < limits.maxHeaderFields else {
            throw .headersTooLarge("more than \(limits.maxHeaderFields) header fields")
        }
        let (name, value) = try HTTPSyntax.fieldLine(line)
        try framing.record(name: name, value: value)
        headers.add(name: HTTPSyntax.string(name), value: HTTPSyntax.string(value))
    }

    private mutating func endOfHead() throws(HTTPError) -> Kind.Message? {
        let mode = try kind.bodyMode(framing, limits: limits)
        lastBodyMode = mode
        switch mode {
        case .none: return complete()
        case .length(let length): state = .body(remaining: length)
        case .chunked: state = .chunked(HTTPChunkedDecoder(limits: limits))
        case .untilClose: state = .untilClose
        case .interim: resetMessage()
        }
        return nil
    }

    private mutating func nextLine(limit: Int, tooLong: @autoclosure () -> HTTPError) throws(HTTPError) -> Range<Int>? {
        guard let line = try HTTPSyntax.nextLine(in: buffer, start: position, scan: &scan, limit: limit, tooLong: tooLong())
        else { return nil }
        position = line.upperBound + 2
        return line
    }

    /// nil when the peer may still send more; an error when it closed mid-message.
    private func needMore(cleanBoundary: Bool) throws(HTTPError) -> Kind.Message? {
        if inputClosed && !cleanBoundary { throw .truncated }
        return nil
    }

    private mutating func complete() -> Kind.Message {
        let message = kind.message(headers: headers, body: body)
        lastFraming = framing
        resetMessage()
        return message
    }

    private mutating func resetMessage() {
        state = .startLine
        headers = HTTPHeaders()
        headerBytes = 0
        framing = HTTPFraming()
        body = []
        leadingEmptyLines = 0
    }

    /// Drops consumed bytes before new ones arrive, shifting saved scan positions with them.
    private mutating func compact() {
        guard position > 0 else { return }
        if position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer.removeFirst(position)
        }
        scan = max(scan - position, 0)
        if case .chunked(var decoder) = state {
            decoder.rebase(by: position)
            state = .chunked(decoder)
        }
        position = 0
    }
}
