import Testing
import WireFormats

@testable import BrokerProtocol

/// Strictness of the parser: JSONTestSuite-style `y_` (must accept) and `n_` (must reject) cases,
/// written for this project, plus the examples of RFC 8259 section 13.
@Suite struct WireJSONParserTests {
    static let accepted: [String] = [
        "[]", "{}", " [ ] ", "\t\n\r[1]\n", "0", "-0", "1", "-1", "0.5", "-0.5", "1e5", "1E5", "1e+5", "1e-5",
        "1.5E-10", "123456789012345678901234567890", "true", "false", "null", #""""#, #""a""#,
        #"[1,2,3]"#, #"{"a":{"b":[{"c":null}]}}"#, #""\u0000""#, #""\"\\\/\b\f\n\r\t""#,
        #""\uD834\uDD1E""#, #""\ud83d\ude00""#, #""é""#, "\"\u{1F600}\"", #""\u00e9""#, #""\u2028""#,
        #"{"":0}"#, #"[[[[[[[[]]]]]]]]"#, "\"\u{7F}\"", #"{"a":1,"b":2}"#,
    ]

    static let rejected: [String] = [
        "", " ", "[", "]", "{", "[1,]", "[,1]", "[1 2]", "{\"a\":1,}", "{,}", "{\"a\" 1}", "{a:1}", "{'a':1}",
        "['a']", "01", "-01", "00", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity",
        "tru", "True", "nul", "[1]x", "[1] [2]", "// c\n[]", "/* c */[]", "[1]#", "\u{FEFF}[]", "\"a",
        "\"\\x41\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\uD800\"", "\"\\uD800\\u0041\"", "\"\\uDC00\"",
        "\"\\uD800x\"", "\"a\tb\"", "\"a\nb\"", "\"\u{1}\"", "{\"a\":1,\"a\":2}", "[1,,2]", "{\"a\"::1}",
        "\"\\\"", "[\"\\u\"]", "\u{0C}[]", "\u{A0}[]",
    ]

    @Test(arguments: accepted) func acceptsValidJSON(_ text: String) throws {
        _ = try WireJSON.parse(Array(text.utf8))
    }

    @Test(arguments: rejected) func rejectsInvalidJSON(_ text: String) {
        #expect(throws: WireJSONError.self) { try WireJSON.parse(Array(text.utf8)) }
    }

    @Test func rejectsInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22],
            [0x22, 0x5C, 0x6E, 0xFE, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
        ]
        for bytes in cases {
            #expect(throws: WireJSONError.self) { try WireJSON.parse(bytes) }
        }
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try WireJSON.parse(Array(#"["\uD834\uDD1E", "a\/b", "\u00e9\n", "\u0000"]"#.utf8))
        #expect(value == .array([.string("\u{1D11E}"), .string("a/b"), .string("é\n"), .string("\u{0}")]))
    }

    @Test func keepsNumberLiterals() throws {
        let value = try WireJSON.parse(Array("[-0, 1.50, 1E+2, 18446744073709551615]".utf8))
        #expect(value == .array([.number("-0"), .number("1.50"), .number("1E+2"), .number("18446744073709551615")]))
    }

    @Test func limitsNesting() throws {
        let ok = String(repeating: "[", count: WireJSON.maximumDepth) + String(repeating: "]", count: WireJSON.maximumDepth)
        _ = try WireJSON.parse(Array(ok.utf8))
        let deep = "[" + ok + "]"
        #expect(throws: WireJSONError.tooDeep(offset: WireJSON.maximumDepth)) { try WireJSON.parse(Array(deep.utf8)) }
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(throws: WireJSONError.self) { try WireJSON.parse(Array(objects.utf8)) }
    }

    @Test func limitsSize() throws {
        let bytes = Array(#"["0123456789"]"#.utf8)
        _ = try WireJSON.parse(bytes, maximumBytes: bytes.count)
        #expect(throws: WireJSONError.tooLarge(limit: 10)) { try WireJSON.parse(bytes, maximumBytes: 10) }
    }

    @Test func errorsNameTheOffsetNotTheInput() {
        let secret = "eyJhbGciOiJSUzI1NiJ9.secret"
        do {
            _ = try WireJSON.parse(Array(#"{"access_token": "\#(secret)",}"#.utf8))
            Issue.record("accepted a trailing comma")
        } catch {
            #expect(error == .syntax(offset: 47, reason: "expected a quoted name"))
            #expect(!error.description.contains(secret))
        }
    }

    /// RFC 8259 section 13.
    @Test func parsesTheRFCExamples() throws {
        let image = """
            {
              "Image": {
                  "Width":  800,
                  "Height": 600,
                  "Title":  "View from 15th Floor",
                  "Thumbnail": {
                      "Url":    "http://www.example.com/image/481989943",
                      "Height": 125,
                      "Width":  100
                  },
                  "Animated" : false,
                  "IDs": [116, 943, 234, 38793]
                }
            }
            """
        struct Thumbnail: Decodable, Equatable {
            let Url: String
            let Height: Int
            let Width: UInt32
        }
        struct Image: Decodable, Equatable {
            let Width: Int, Height: Int32, Title: String, Thumbnail: Thumbnail, Animated: Bool, IDs: [Int64]
        }
        let decoded = try WireJSON.decode([String: Image].self, from: Array(image.utf8))
        #expect(decoded["Image"]?.Thumbnail == Thumbnail(Url: "http://www.example.com/image/481989943", Height: 125, Width: 100))
        #expect(decoded["Image"]?.IDs == [116, 943, 234, 38793])
        #expect(decoded["Image"]?.Animated == false)

        let places = """
            [
              {
                 "precision": "zip", "Latitude":  37.7668, "Longitude": -122.3959, "Address":   "",
                 "City":      "SAN FRANCISCO", "State":     "CA", "Zip":       "94107", "Country":   "US"
              },
              {
                 "precision": "zip", "Latitude":  37.371991, "Longitude": -122.026020, "Address":   "",
                 "City":      "SUNNYVALE", "State":     "CA", "Zip":       "94085", "Country":   "US"
              }
            ]
            """
        struct Place: Decodable {
            let precision: String
            let Latitude: Double
            let Longitude: Double
            let City: String
        }
        let list = try WireJSON.decode([Place].self, from: Array(places.utf8))
        #expect(list.map(\.City) == ["SAN FRANCISCO", "SUNNYVALE"])
        #expect(list[1].Longitude == -122.026020)
        #expect(try WireJSON.decode(String.self, from: Array(#""Hello world!""#.utf8)) == "Hello world!")
        #expect(try WireJSON.decode(Int.self, from: Array("42".utf8)) == 42)
        #expect(try WireJSON.decode(Bool.self, from: Array("true".utf8)) == true)
    }
}
