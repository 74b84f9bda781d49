import BrokerStore
import Testing

@Test func storeLinks() {
    #expect(StoreError.notImplemented is any Error)
}
