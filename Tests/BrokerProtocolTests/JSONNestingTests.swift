import TestSupport
import Testing
import WireFormats

@testable import BrokerProtocol

/// The nesting gate every parser of outside JSON calls first (Sources/JSONLimits).
@Suite struct JSONNestingTests {
    static func nested(_ depth: Int) -> [UInt8] { DeepJSON.arrays(depth) }

    @Test func acceptsTheLimitAndRefusesOneLevelMoreAtTheOffendingBracket() throws {
        try JSONNesting.check(Self.nested(JSONNesting.maximumDepth))
        #expect(throws: JSONTooDeep(offset: 64)) { try JSONNesting.check(Self.nested(65)) }
        // Objects: the 65th "{" is at 5 × 64 in `{"a":{"a":…`.
        #expect(throws: JSONTooDeep(offset: 5 * 64)) { try JSONNesting.check(DeepJSON.objects(65)) }
    }

    @Test func tenThousandLevelsAreRefusedInOnePassWithoutRecursion() {
        for bytes in [DeepJSON.arrays(), DeepJSON.objects(), DeepJSON.objectHolding()] {
            #expect(throws: JSONTooDeep.self) { try JSONNesting.check(bytes) }
        }
        // A whole megabyte of brackets (the HTTP client's body cap) is just as cheap.
        #expect(throws: JSONTooDeep.self) { try JSONNesting.check(Self.nested(512 * 1024)) }
    }

    @Test func bracketsInsideStringsDoNotCount() throws {
        let brackets = String(repeating: "[{", count: 100)
        try JSONNesting.check(Array(#"{"a":"\#(brackets)","b":["x\"[[[[","\\"]}"#.utf8))
        // An escaped backslash ends the escape: the quote after it closes the string.
        #expect(throws: JSONTooDeep.self) {
            try JSONNesting.check(Array(#"["\\"#.utf8) + Array(#"",["#.utf8) + Self.nested(64) + [UInt8(ascii: "]")])
        }
    }

    @Test func strayClosersCannotBuyExtraDepth() {
        let bytes = Array(String(repeating: "]", count: 1000).utf8) + Self.nested(65)
        #expect(throws: JSONTooDeep.self) { try JSONNesting.check(bytes) }
    }

    @Test func aLowerLimitCanBeAsked() throws {
        try JSONNesting.check(Self.nested(3), limit: 3)
        #expect(throws: JSONTooDeep(offset: 3, limit: 3)) { try JSONNesting.check(Self.nested(4), limit: 3) }
    }

    @Test func theMessageNamesTheDocumentAndTheLimitButNoInput() {
        let error = JSONTooDeep(offset: 64)
        #expect(error.describing("the provider's token answer") == "the provider's token answer nests JSON deeper than 64 levels")
        #expect(error.description == "JSON nested deeper than 64 levels (at byte 64)")
    }

    /// The gate and the wire parser agree on every valid document: the gate refuses exactly
    /// those the parser refuses as too deep.
    @Test func agreesWithTheWireParser() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let depth = Int.random(in: 50...80, using: &generator)
            let text = Self.document(depth: depth, using: &generator)
            let gateRefuses = (try? JSONNesting.check(Array(text.utf8))) == nil
            var parserRefuses = false
            do {
                _ = try WireJSON.parse(Array(text.utf8))
            } catch .tooDeep {
                parserRefuses = true
            } catch {
                Issue.record("a generated document must be valid: \(error)")
            }
            #expect(gateRefuses == parserRefuses && gateRefuses == (depth > 64), "\(text)")
        }
    }

    /// A valid document of exactly `depth` levels, mixing arrays, objects and strings full of
    /// brackets, quotes and escapes.
    static func document(depth: Int, using generator: inout some RandomNumberGenerator) -> String {
        let noise = [#""[""#, #""{\"}""#, #""\\""#, #""]]}}""#, "1", "null"]
        var open = ""
        var close = ""
        for level in 0..<depth {
            let filler = noise.randomElement(using: &generator)!
            if Bool.random(using: &generator) {
                open += "[\(filler),"
                close = "]" + close
            } else {
                open += #"{"k\#(level)":\#(filler),"v":"#
                close = "}" + close
            }
        }
        // The innermost value closes the last "," or ":" with a scalar.
        return open + "0" + close
    }
}
