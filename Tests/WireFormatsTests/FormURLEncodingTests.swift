import Testing
import WireFormats

@Test func encodesLikeRFC6749AppendixB() {
    // RFC 6749 Appendix B: " %&+£€" → "+%25%26%2B%C2%A3%E2%82%AC"
    #expect(FormURLEncoding.encodeComponent(" %&+£€") == "+%25%26%2B%C2%A3%E2%82%AC")
    #expect(FormURLEncoding.encodeComponent("AZaz09-._~") == "AZaz09-._~")
    #expect(FormURLEncoding.encodeComponent("a/b:c=d?") == "a%2Fb%3Ac%3Dd%3F")
    let body = FormURLEncoding.encode([
        FormField("grant_type", "authorization_code"), FormField("redirect_uri", "http://127.0.0.1:8080/cb"),
    ])
    #expect(body == "grant_type=authorization_code&redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcb")
}

@Test func decodesStrictly() throws {
    #expect(try FormURLEncoding.decodeComponent(Array("+%25%26%2B%C2%A3%E2%82%AC".utf8)) == " %&+£€")
    #expect(
        try FormURLEncoding.decode("a=1&&b=&c&a=2%20x") == [
            FormField("a", "1"), FormField("b", ""), FormField("c", ""), FormField("a", "2 x"),
        ])
    #expect(try FormURLEncoding.decode("") == [])
    #expect(throws: FormURLEncoding.DecodingError.invalidPercentEscape) { try FormURLEncoding.decode("a=%2") }
    #expect(throws: FormURLEncoding.DecodingError.invalidPercentEscape) { try FormURLEncoding.decode("a=%zz") }
    #expect(throws: FormURLEncoding.DecodingError.invalidUTF8) { try FormURLEncoding.decode("a=%C3%28") }
}

@Test func roundTripsArbitraryStrings() throws {
    let samples = ["", "plain", "spaces and+plus", "ümläut €", "emoji 🔑", "=&%;#\u{0}\n", "\u{7f}~"]
    let fields = samples.map { FormField($0, $0 + "!") }
    #expect(try FormURLEncoding.decode(FormURLEncoding.encode(fields)).filter { !$0.name.isEmpty || !$0.value.isEmpty } == fields)
    for sample in samples {
        #expect(try FormURLEncoding.decodeComponent(Array(FormURLEncoding.encodeComponent(sample).utf8)) == sample)
    }
}

@Test func queryHelpers() throws {
    let request = HTTPRequest(method: "GET", target: "/cb?code=abc%2Fdef&state=x+y&iss=https%3A%2F%2Fidp")
    #expect(request.queryValue("code") == "abc/def")
    #expect(request.queryValue("state") == "x y")
    #expect(request.queryValue("missing") == nil)
    #expect(try request.queryFields().count == 3)
    #expect(try HTTPRequest(method: "GET", target: "/").queryFields() == [])
    let form = HTTPRequest(method: "POST", target: "/", body: Array("a=b+c".utf8))
    #expect(try form.formFields() == [FormField("a", "b c")])
}
