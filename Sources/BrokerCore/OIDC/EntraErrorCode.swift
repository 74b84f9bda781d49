/// Microsoft Entra's `AADSTS` codes after which a refresh cannot succeed until the user signs in
/// again, and why, in words (Microsoft's "Microsoft Entra authentication and authorization error
/// codes"). Entra answers them as an RFC 6749 §5.2 `invalid_grant` (HTTP 400) whose
/// `error_description` starts with `AADSTSnnnnn:`. Microsoft warns that the numbers may change, so
/// they only explain a failure: classifying it stays `OIDCError.rejectsGrant`'s job.
enum EntraErrorCode {
    static let reasons: [Int: String] = [
        50173: "the password was changed or reset since this login, which revoked its tokens",
        700082: "the refresh token expired because it was not used for too long",
        70043: "the tenant's Conditional Access sign-in frequency policy requires signing in again",
        70044: "the session expired or was revoked by the tenant's session policy",
        50076: "the tenant now requires multi-factor authentication for this access",
        50079: "the tenant requires the user to register for multi-factor authentication",
        53003: "the tenant's Conditional Access policy blocked this access",
    ]

    /// The number after the first `AADSTS` in `description`, when it is one of `reasons`' codes.
    static func code(in description: String) -> Int? {
        guard let start = description.firstRange(of: "AADSTS")?.upperBound else { return nil }
        let digits = description[start...].prefix(while: \.isASCIIDigit).prefix(7)
        guard let code = Int(digits), reasons[code] != nil else { return nil }
        return code
    }

    /// "why (AADSTSnnnnn)" for an Entra error body with a known code; nil for every other body.
    static func explanation(of response: OAuthErrorResponse) -> String? {
        guard let description = response.errorDescription, let code = code(in: description),
            let reason = reasons[code]
        else { return nil }
        return "\(reason) (AADSTS\(code))"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
