import BrokerProtocol
import Testing
import WireFormats

/// The typed reads provider answers are parsed with (they replaced BrokerCore's own JSON model).
@Suite struct JSONValueAccessorTests {
    static func value(_ text: String) throws -> JSONValue { try WireJSON.parse(Array(text.utf8)) }

    @Test func numbersAreReadAsDoublesAndOnlyNumberValueAcceptsQuotedOnes() throws {
        #expect(try Self.value("3600").doubleValue == 3600)
        #expect(try Self.value("1.5e3").doubleValue == 1500)
        #expect(try Self.value(#""3600""#).doubleValue == nil)
        #expect(try Self.value(#""3600""#).numberValue == 3600)
        #expect(try Self.value("true").numberValue == nil)
        #expect(try Self.value("1e400").doubleValue?.isFinite == false)
    }

    @Test func stringsBooleansAndStringLists() throws {
        #expect(try Self.value(#""a""#).stringValue == "a")
        #expect(try Self.value("1").stringValue == nil)
        #expect(try Self.value("false").boolValue == false)
        #expect(try Self.value("0").boolValue == nil)
        #expect(try Self.value(#""aud""#).stringList == ["aud"])
        #expect(try Self.value(#"["a","b"]"#).stringList == ["a", "b"])
        #expect(try Self.value(#"["a",1]"#).stringList == nil)
        #expect(try Self.value("null").stringList == nil)
    }
}
