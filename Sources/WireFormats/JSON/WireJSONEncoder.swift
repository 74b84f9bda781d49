/// One value being encoded. A reference, because `Encoder` hands out containers that write into
/// their parent after `encode(to:)` has returned them.
final class EncodingNode {
    private enum Content {
        case unset
        case scalar(JSONValue)
        case object, array
    }

    private var content = Content.unset
    private var members: [String: EncodingNode] = [:]
    private var elements: [EncodingNode] = []

    func set(_ value: JSONValue) {
        content = .scalar(value)
    }

    /// Turns this node into an object (keeping members when it already is one, as nested
    /// `container(keyedBy:)` calls for the same encoder share it) and returns the member `name`.
    func member(_ name: String) -> EncodingNode {
        becomeObject()
        let child = EncodingNode()
        members[name] = child
        return child
    }

    func becomeObject() {
        if case .object = content { return }
        content = .object
        members = [:]
    }

    func appendElement() -> EncodingNode {
        becomeArray()
        let child = EncodingNode()
        elements.append(child)
        return child
    }

    func becomeArray() {
        if case .array = content { return }
        content = .array
        elements = []
    }

    var elementCount: Int { elements.count }

    /// The finished value; a type that encoded nothing becomes `{}`, as with Foundation.
    func resolved() -> JSONValue {
        switch content {
        case .unset: .object([:])
        case .scalar(let value): value
        case .object: .object(members.mapValues { $0.resolved() })
        case .array: .array(elements.map { $0.resolved() })
        }
    }
}

/// The `Encoder` behind `WireJSON.encode`; it is also its own single-value container.
struct WireJSONEncoder: Encoder, SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(WireJSONKeyedEncoder<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return WireJSONUnkeyedEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { node.set(.null) }
    func encode(_ value: Bool) throws { node.set(.bool(value)) }
    func encode(_ value: String) throws { node.set(.string(value)) }
    func encode(_ value: Double) throws { node.set(try JSONScalar.floatingPoint(value, path: codingPath)) }
    func encode(_ value: Float) throws { node.set(try JSONScalar.floatingPoint(value, path: codingPath)) }
    func encode(_ value: Int) throws { node.set(JSONScalar.integer(value)) }
    func encode(_ value: Int8) throws { node.set(JSONScalar.integer(value)) }
    func encode(_ value: Int16) throws { node.set(JSONScalar.integer(value)) }
    func encode(_ value: Int32) throws { node.set(JSONScalar.integer(value)) }
    func encode(_ value: Int64) throws { node.set(JSONScalar.integer(value)) }
    func encode(_ value: UInt) throws { node.set(JSONScalar.integer(value)) }
    func encode(_ value: UInt8) throws { node.set(JSONScalar.integer(value)) }
    func encode(_ value: UInt16) throws { node.set(JSONScalar.integer(value)) }
    func encode(_ value: UInt32) throws { node.set(JSONScalar.integer(value)) }
    func encode(_ value: UInt64) throws { node.set(JSONScalar.integer(value)) }
    func encode<Value: Encodable>(_ value: Value) throws { try value.encode(to: self) }
}

/// Object members; every primitive goes through a fresh single-value encoder for its member.
struct WireJSONKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    private func child(_ key: some CodingKey) -> WireJSONEncoder {
        WireJSONEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { try child(key).encodeNil() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try child(key).encode(value) }
    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws { try value.encode(to: child(key)) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        child(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { child(SuperCodingKey()) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

/// Array elements, appended in order.
struct WireJSONUnkeyedEncoder: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int { node.elementCount }

    private func next() -> WireJSONEncoder {
        let key = IndexCodingKey(node.elementCount)
        return WireJSONEncoder(node: node.appendElement(), codingPath: codingPath + [key])
    }

    mutating func encodeNil() throws { try next().encodeNil() }
    mutating func encode(_ value: Bool) throws { try next().encode(value) }
    mutating func encode(_ value: String) throws { try next().encode(value) }
    mutating func encode(_ value: Double) throws { try next().encode(value) }
    mutating func encode(_ value: Float) throws { try next().encode(value) }
    mutating func encode(_ value: Int) throws { try next().encode(value) }
    mutating func encode(_ value: Int8) throws { try next().encode(value) }
    mutating func encode(_ value: Int16) throws { try next().encode(value) }
    mutating func encode(_ value: Int32) throws { try next().encode(value) }
    mutating func encode(_ value: Int64) throws { try next().encode(value) }
    mutating func encode(_ value: UInt) throws { try next().encode(value) }
    mutating func encode(_ value: UInt8) throws { try next().encode(value) }
    mutating func encode(_ value: UInt16) throws { try next().encode(value) }
    mutating func encode(_ value: UInt32) throws { try next().encode(value) }
    mutating func encode(_ value: UInt64) throws { try next().encode(value) }
    mutating func encode<Value: Encodable>(_ value: Value) throws { try value.encode(to: next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { next() }
}
