import BrokerHTTP
import WireFormats

/// The small pages the browser sees on the redirect listener. Everything reflected is
/// HTML-escaped, and the headers forbid scripts, framing, caching and referrers, so a forged
/// redirect cannot turn the page into an attack on the user.
enum CallbackPage {
    static let success = page(
        status: 200, title: "Signed in",
        message: "authbroker received the login. You can close this tab and return to your terminal.")

    static let notFound = page(status: 404, title: "Not found", message: "This address is not the login callback.")

    static let methodNotAllowed = page(
        status: 405, title: "Method not allowed", message: "The login callback accepts only GET.")

    static func failure(_ error: OIDCError) -> HTTPResponse {
        page(status: 400, title: "Login failed", message: error.description)
    }

    static func page(status: Int, title: String, message: String) -> HTTPResponse {
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>authbroker: \(HTML.escape(title))</title></head>
            <body style="font-family: sans-serif; max-width: 40em; margin: 4em auto">
            <h1>\(HTML.escape(title))</h1>
            <p>\(HTML.escape(message))</p>
            </body></html>

            """
        var headers = HTTPHeaders([
            ("Content-Type", "text/html; charset=utf-8"),
            ("Cache-Control", "no-store"),
            ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Content-Type-Options", "nosniff"),
        ])
        if status == 405 { headers.add(name: "Allow", value: "GET") }
        return HTTPResponse(status: status, headers: headers, body: Array(html.utf8))
    }
}
