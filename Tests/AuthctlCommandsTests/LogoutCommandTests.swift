import Testing

@testable import AuthctlCommands

/// `authctl logout` on a terminal: the end-session URL without the ID token.
@Suite struct LogoutCommandTests {
    @Test func theIDTokenHintIsLeftOutAndEveryOtherParameterKeptInOrder() {
        #expect(
            LogoutCommand.withoutIDTokenHint("https://id.example/logout?id_token_hint=eyJ.x.y&client_id=c&state=s")
                == "https://id.example/logout?client_id=c&state=s")
        #expect(
            LogoutCommand.withoutIDTokenHint("https://id.example/logout?client_id=c&id_token_hint=eyJ")
                == "https://id.example/logout?client_id=c")
        #expect(LogoutCommand.withoutIDTokenHint("https://id.example/logout?id_token_hint=eyJ") == "https://id.example/logout")
        #expect(LogoutCommand.withoutIDTokenHint("https://id.example/logout") == "https://id.example/logout")
    }
}
