import Foundation
import TestSupport
import Testing

@Test func testCertificatesAreGeneratedOnceAndVerify() throws {
    let certificates = try TestCertificates.shared()
    #expect(try TestCertificates.shared().directory == certificates.directory)
    for pair in [certificates.localhost, certificates.expired, certificates.otherHost] {
        #expect(FileManager.default.fileExists(atPath: pair.certificateFile))
        #expect(FileManager.default.fileExists(atPath: pair.keyFile))
    }
}
