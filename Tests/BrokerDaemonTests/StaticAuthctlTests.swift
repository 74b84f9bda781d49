import TestSupport
import Testing

/// docs/security.md: "`authctl` is linked as a static executable (no dynamic loader)". A static
/// ELF has no PT_INTERP program header; the daemon, linked dynamically, has one (the control that
/// shows the reader works).
@Suite struct StaticAuthctlTests {
    @Test func authctlHasNoDynamicLoaderAndTheDaemonHasOne() throws {
        let authctl = try ELFFile(path: ProductBinary.path("authctl")).programHeaders().map(\.type)
        #expect(authctl.contains(ELFFile.interpreter) == false)
        let daemon = try ELFFile(path: ProductBinary.path("authbrokerd")).programHeaders().map(\.type)
        #expect(daemon.contains(ELFFile.interpreter))
    }
}
