/// Incremental decoder for the `chunked` transfer coding (RFC 9112 §7.1).
///
/// Chunk extensions are ignored (but must not contain control characters); trailer fields are
/// checked like header fields, counted against the header limits, and discarded. Chunk sizes
/// are 1–15 hex digits with nothing else before the extensions: a sign, `0x`, an empty size or
/// a size that overflows the body limit is refused, so the decoder and a front proxy can never
/// disagree on where the body ends.
public struct HTTPChunkedDecoder: Sendable {
    enum State: Sendable, Equatable {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailers
        case done
    }

    private var state: State = .sizeLine
    private let limits: HTTPLimits
    private var decodedBytes = 0
    private var trailerBytes = 0
    private var trailerFields = 0
    private var scan = 0

    public init(limits: HTTPLimits) {
        self.limits = limits
    }

    /// True once the last chunk and the trailer section have been consumed.
    public var isComplete: Bool { state == .done }

    /// Consumes as much of `buffer[position...]` as possible, appending chunk data to `body` and
    /// advancing `position`. Returns true when the body is complete; false when more bytes are needed.
    public mutating func decode(
        _ buffer: [UInt8], position: inout Int, into body: inout [UInt8]
    ) throws(HTTPError) -> Bool {
        while true {
            switch state {
            case .sizeLine:
                guard let line = try nextLine(buffer, position, limits.maxChunkLineBytes, .malformed("chunk-size line too long"))
                else { return false }
                position = line.upperBound + 2
                let size = try chunkSize(buffer[line])
                state = size == 0 ? .trailers : .data(remaining: size)
            case .data(let remaining):
                let available = min(remaining, buffer.count - position)
                if available == 0 { return false }
                body.append(contentsOf: buffer[position..<(position + available)])
                position += available
                state = remaining == available ? .dataEnd : .data(remaining: remaining - available)
            case .dataEnd:
                guard buffer.count - position >= 2 else { return false }
                guard buffer[position] == HTTPSyntax.cr, buffer[position + 1] == HTTPSyntax.lf else {
                    throw .malformed("chunk data not followed by CRLF")
                }
                position += 2
                state = .sizeLine
            case .trailers:
                guard let line = try trailerLine(buffer, position) else { return false }
                position = line.upperBound + 2
                if line.isEmpty { state = .done } else { try checkTrailer(buffer[line]) }
            case .done:
                return true
            }
        }
    }

    /// Called when the caller drops `count` consumed bytes from the front of its buffer.
    public mutating func rebase(by count: Int) { scan = max(scan - count, 0) }

    private mutating func nextLine(
        _ buffer: [UInt8], _ position: Int, _ limit: Int, _ tooLong: @autoclosure () -> HTTPError
    ) throws(HTTPError) -> Range<Int>? {
        try HTTPSyntax.nextLine(in: buffer, start: position, scan: &scan, limit: limit, tooLong: tooLong())
    }

    private mutating func trailerLine(_ buffer: [UInt8], _ position: Int) throws(HTTPError) -> Range<Int>? {
        let budget = limits.maxHeaderBytes - trailerBytes
        let limit = limits.maxHeaderBytes
        guard
            let line = try nextLine(buffer, position, max(budget - 2, 0), .headersTooLarge("trailer section over \(limit) bytes"))
        else { return nil }
        trailerBytes += line.count + 2
        return line
    }

    private mutating func checkTrailer(_ line: ArraySlice<UInt8>) throws(HTTPError) {
        trailerFields += 1
        if trailerFields > limits.maxHeaderFields {
            throw .headersTooLarge("more than \(limits.maxHeaderFields) trailer fields")
        }
        _ = try HTTPSyntax.fieldLine(line)
    }

    /// `1*HEXDIG [ BWS ";" extensions ]`, bounded by the body limit.
    private mutating func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPError) -> Int {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = HTTPSyntax.hexValue(line[index]) {
            // 15 hex digits cannot overflow Int; the body limit is checked below anyway.
            guard index - line.startIndex < 15 else { throw .malformed("chunk size too long") }
            size = size * 16 + digit
            index += 1
        }
        guard index > line.startIndex else { throw .malformed("chunk size is not a hexadecimal number") }
        let rest = HTTPSyntax.trimmed(line[index...])
        if index < line.endIndex, rest.first != UInt8(ascii: ";") {
            throw .malformed("unexpected characters after the chunk size")
        }
        guard rest.allSatisfy(HTTPSyntax.isFieldValueByte) else {
            throw .malformed("control character in a chunk extension")
        }
        guard size <= limits.maxBodyBytes - decodedBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
        decodedBytes += size
        return size
    }
}
