import BrokerProtocol
import Testing

@testable import BrokerCore

/// A resource server that answers every message 403 without `scope=` makes the relay look the
/// scopes up (RFC 9728) at most once per interval and account: its answers choose those requests.
@Suite struct StepUpRequestsTests {
    @Test func reDiscoveryIsAllowedOncePerIntervalAndAccount() {
        let requests = StepUpRequests()
        let (work, home) = (AccountKey(owner: 1000, name: "work"), AccountKey(owner: 1000, name: "home"))
        let start = ContinuousClock.now
        #expect(requests.mayRediscover(work, now: start))
        #expect(!requests.mayRediscover(work, now: start + .seconds(1)))
        #expect(!requests.mayRediscover(work, now: start + StepUpRequests.rediscoveryInterval - .seconds(1)))
        #expect(requests.mayRediscover(home, now: start + .seconds(1)))
        #expect(requests.mayRediscover(work, now: start + StepUpRequests.rediscoveryInterval))
    }
}

/// The relay's 401 reports: once a minute per account, whatever the resource answers.
@Suite struct AccountThrottleTests {
    @Test func oneGoPerIntervalAndAccount() {
        let throttle = AccountThrottle(interval: .seconds(60))
        let key = AccountKey(owner: 1000, name: "tools")
        let start = ContinuousClock.now
        #expect(throttle.allow(key, now: start))
        #expect((1...100).allSatisfy { !throttle.allow(key, now: start + .milliseconds($0 * 500)) })
        #expect(throttle.allow(key, now: start + .seconds(60)))
    }
}
