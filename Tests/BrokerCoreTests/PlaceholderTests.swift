import BrokerCore
import Testing

@Test func coreLinks() {
    #expect(!BrokerCoreInfo.version.isEmpty)
}
