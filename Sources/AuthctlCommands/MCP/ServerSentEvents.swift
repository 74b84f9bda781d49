/// A parser of `text/event-stream` (WHATWG HTML, "Server-sent events", §9.2.6), for the SSE answers
/// of an MCP server's Streamable HTTP transport: lines end in CRLF, LF or CR; `:` starts a comment;
/// `field: value` loses one space after the colon; `data` lines join with LF; an empty line
/// dispatches the event (none when it has no data); `id` without NUL sets the last event id;
/// unknown fields (and `retry`) are ignored. Bounded: an event's data beyond `maximumEventBytes`
/// fails the stream rather than growing without end.
struct ServerSentEvents {
    struct Event: Equatable {
        var type: String
        var data: String
        var id: String?
    }

    enum Failure: Error, Equatable, CustomStringConvertible {
        case eventTooLarge(limit: Int)
        var description: String {
            switch self {
            case .eventTooLarge(let limit): "an event of the MCP server's stream is larger than \(limit) bytes"
            }
        }
    }

    static let defaultMaximumEventBytes = 1024 * 1024
    let maximumEventBytes: Int
    /// The last `id` seen (for `Last-Event-ID` on a resumed stream).
    private(set) var lastEventID: String?
    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var type = ""
    private var pendingCR = false

    init(maximumEventBytes: Int = defaultMaximumEventBytes) { self.maximumEventBytes = maximumEventBytes }

    /// Feeds bytes; returns the events they complete, in order.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws(Failure) -> [Event] where Bytes.Element == UInt8 {
        var events: [Event] = []
        for byte in bytes {
            if pendingCR {
                pendingCR = false
                if byte == 10 { continue }  // the LF of a CRLF
            }
            switch byte {
            case 13:
                pendingCR = true
                if let event = try endLine() { events.append(event) }
            case 10:
                if let event = try endLine() { events.append(event) }
            default:
                guard line.count + data.count < maximumEventBytes else { throw .eventTooLarge(limit: maximumEventBytes) }
                line.append(byte)
            }
        }
        return events
    }

    /// The end of the stream: an event without its final empty line is discarded (as the spec says).
    mutating func finish() {
        line = []
        data = []
        hasData = false
        type = ""
    }

    private mutating func endLine() throws(Failure) -> Event? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var value = colon.map { line[line.index(after: $0)...] } ?? []
        if value.first == 32 { value = value.dropFirst() }
        switch name {
        case "data":
            if hasData { data.append(10) }
            data.append(contentsOf: value)
            hasData = true
        case "event":
            type = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> Event? {
        defer {
            data = []
            hasData = false
            type = ""
        }
        guard hasData else { return nil }
        return Event(type: type.isEmpty ? "message" : type, data: String(decoding: data, as: UTF8.self), id: lastEventID)
    }
}
