import BrokerProtocol
import Testing
import WireFormats

@testable import BrokerCore

/// Every manual endpoint is checked (https, or http only to loopback) before anything is stored:
/// the list comes from `ManualEndpoints`' own keys, so a new endpoint cannot be left unchecked.
@Suite struct AccountValidationTests {
    @Test func everyManualEndpointMustBeSecure() throws {
        let secure = "https://idp.example/x"
        let all = ManualEndpoints(
            authorization: secure, token: secure, revocation: secure, userinfo: secure, deviceAuthorization: secure,
            endSession: secure, jwksURI: secure)
        #expect(all.configured.count == 7)
        var base = AccountConfiguration(name: "work", issuer: "https://idp.example", clientID: "cli", endpoints: all)
        #expect((try? AccountValidation.check(base).get()) != nil)
        for (key, _) in all.configured {
            guard case .object(var fields) = try WireJSON.encodeValue(all) else { return }
            fields[key] = .string("http://idp.example/x")
            base.endpoints = try WireJSON.decode(ManualEndpoints.self, from: .object(fields))
            guard case .failure(let error) = AccountValidation.check(base) else {
                Issue.record("an insecure \(key) was accepted")
                continue
            }
            #expect(error.code == .invalidRequest && error.message.contains(key), "\(key): \(error.message)")
        }
    }

    @Test func aTenantAllowListNeedsAMultiTenantEntraIssuerAndGUIDs() {
        let tenant = "9122040d-6c67-4c5b-b112-36a304b66dad"
        func problem(_ issuer: String, _ tenants: [String]) -> String? {
            let input = AccountConfiguration(name: "work", issuer: issuer, clientID: "cli", tenantAllow: tenants)
            guard case .failure(let error) = AccountValidation.check(input) else { return nil }
            return error.message
        }
        #expect(problem("https://login.microsoftonline.com/organizations/v2.0", [tenant]) == nil)
        #expect(problem("https://login.microsoftonline.com/\(tenant)/v2.0", [tenant])?.contains("multi-tenant") == true)
        #expect(problem("https://idp.example", [tenant])?.contains("multi-tenant") == true)
        #expect(problem("https://login.microsoftonline.com/common/v2.0", [tenant.uppercased()])?.contains("lowercase") == true)
        #expect(problem("https://idp.example", []) == nil, "an empty list is no list")
    }
}
