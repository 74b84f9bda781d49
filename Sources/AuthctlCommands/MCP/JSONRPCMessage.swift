import BrokerProtocol
import WireFormats

/// What the bridge reads of a JSON-RPC 2.0 message (it relays the bytes, never a re-encoding):
/// whether it is a request (method and id: the host waits for an answer), the id, and the
/// negotiated protocol version of an initialize answer.
struct JSONRPCMessage {
    private let object: [String: JSONValue]?

    init(_ bytes: [UInt8]) {
        if case .object(let object)? = try? WireJSON.parse(bytes, maximumBytes: MCPRelay.maximumMessageBytes) {
            self.object = object
        } else {
            object = nil
        }
    }

    var isObject: Bool { object != nil }
    var method: String? { object?["method"]?.stringValue }
    var isInitialize: Bool { method == "initialize" }

    /// The id of a request (a message with a method and an id), nil for notifications and responses.
    var requestID: JSONValue? {
        guard method != nil, let id = object?["id"], id != .null else { return nil }
        return id
    }

    /// `result.protocolVersion` of an initialize answer (visible ASCII, bounded), else nil.
    var negotiatedVersion: String? {
        guard case .object(let result)? = object?["result"] else { return nil }
        return MCPRelay.passable(result["protocolVersion"]?.stringValue)
    }
}

/// The JSON-RPC error answers the bridge writes itself.
enum JSONRPCError {
    static let parseError = -32700
    static let invalidRequest = -32600
    /// Implementation-defined server errors (-32000…-32099): the bridge or the broker failed.
    static let bridgeFailure = -32000
    /// The resource server needs more scopes: `authctl login NAME` (step-up).
    static let stepUp = -32001

    static func answer(id: JSONValue, code: Int, _ message: String) -> String {
        let error: JSONValue = .object(["code": .number(String(code)), "message": .string(message)])
        let bytes = WireJSON.serialize(.object(["jsonrpc": .string("2.0"), "id": id, "error": error]))
        return String(decoding: bytes, as: UTF8.self)
    }
}
