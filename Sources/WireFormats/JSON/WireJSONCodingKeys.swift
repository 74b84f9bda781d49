/// Coding keys the containers make up themselves: array positions and `super`.
struct IndexCodingKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(_ index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }

    init?(intValue: Int) { self.init(intValue) }
    init?(stringValue: String) { nil }
}

struct SuperCodingKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { guard stringValue == "super" else { return nil } }
    init?(intValue: Int) { nil }
}

/// Scalar conversions shared by every encoding container, matching Foundation's number text.
enum JSONScalar {
    static func integer<Integer: BinaryInteger>(_ value: Integer) -> JSONValue { .number(String(value)) }

    /// Shortest round-tripping text, `3` rather than `3.0` (as Foundation writes it); NaN and
    /// infinities have no JSON form.
    static func floatingPoint<Number: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: Number, path: [any CodingKey]
    ) throws(WireJSONError) -> JSONValue {
        guard value.isFinite else {
            throw .unencodable(path: CodingPathText.render(path), reason: "\(value) has no JSON representation")
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .number(text)
    }
}
