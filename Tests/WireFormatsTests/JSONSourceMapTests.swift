import Testing
import WireFormats

/// `WireJSON.parseMapped` and `JSONSourceMap`: where members and elements start, as line:column.
@Suite struct JSONSourceMapTests {
    static let document = """
        {
          "accounts": [
            {"name": "a", "scope": ["x"]},
            {
              "name": "é",
              "endpoints": {"token_endpoint": "https://t"}
            }
          ]
        }
        """

    func mapped(_ text: String) throws -> (JSONValue, JSONSourceMap) { try WireJSON.parseMapped(Array(text.utf8)) }

    @Test func membersAndElementsAreFoundByPath() throws {
        let (value, map) = try mapped(Self.document)
        #expect(value == (try WireJSON.parse(Array(Self.document.utf8))), "the map changes nothing parsed")
        #expect(map.position(of: [.name("accounts")]).description == "2:3")
        #expect(map.position(of: [.name("accounts"), .index(0)]).description == "3:5")
        #expect(map.position(of: [.name("accounts"), .index(0), .name("scope")]).description == "3:19")
        #expect(map.position(of: [.name("accounts"), .index(0), .name("scope"), .index(0)]).description == "3:29")
        #expect(
            map.position(of: [.name("accounts"), .index(1), .name("endpoints"), .name("token_endpoint")]).description == "6:21")
    }

    @Test func aMissingPathIsReportedAtItsNearestAncestor() throws {
        let (_, map) = try mapped(Self.document)
        #expect(map.offset(of: [.name("accounts"), .index(1), .name("client_id")]) == nil)
        #expect(map.position(of: [.name("accounts"), .index(1), .name("client_id")]).description == "4:5")
        #expect(map.position(of: [.name("nothing")]).description == "1:1")
        #expect(map.position(of: []).description == "1:1")
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let text = "{\"é\u{1F600}\": {\"k\": 1}}"
        let (_, map) = try mapped(text)
        // `{"é😀": {` is 8 characters (12 bytes): "k" opens at column 9.
        #expect(map.position(of: [.name("é\u{1F600}"), .name("k")]).description == "1:9")
        #expect(TextPosition(offset: 12, in: Array(text.utf8)).description == "1:9")
    }

    @Test func syntaxErrorOffsetsBecomeLinesAndColumns() throws {
        let text = "{\n  \"a\": 1,\n  \"b\": tru\n}"
        let bytes = Array(text.utf8)
        do {
            _ = try WireJSON.parseMapped(bytes)
            Issue.record("parsed invalid JSON")
        } catch {
            guard case .syntax(let offset, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(TextPosition(offset: offset, in: bytes).description == "3:8")
        }
        #expect(TextPosition(offset: 10_000, in: bytes).description == "4:2", "clamped to the end")
    }

    @Test func pathsAreReadAndWrittenAsCodingPaths() {
        let path: [JSONSourceMap.Component] = [.name("accounts"), .index(2), .name("endpoints"), .name("jwks_uri")]
        #expect(JSONSourceMap.text(of: path) == "accounts[2].endpoints.jwks_uri")
        #expect(JSONSourceMap.components(of: "accounts[2].endpoints.jwks_uri") == path)
        #expect(JSONSourceMap.components(of: "[0][1]") == [.index(0), .index(1)])
        #expect(JSONSourceMap.components(of: "") == [])
    }

    @Test func theMapIsBoundedByTheDocumentNotByPathLength() throws {
        // 60 nested levels under a 2,000-byte name, then 2,000 members: entries, not path copies.
        let name = String(repeating: "n", count: 2000)
        let members = (0..<2000).map { "\"m\($0)\":0" }.joined(separator: ",")
        let text = String(repeating: "{\"\(name)\":", count: 60) + "{" + members + "}" + String(repeating: "}", count: 60)
        let (_, map) = try mapped(text)
        let deepest = Array(repeating: JSONSourceMap.Component.name(name), count: 60) + [.name("m1999")]
        #expect(map.position(of: deepest).line == 1)
        #expect(map.offset(of: deepest) != nil)
    }
}
