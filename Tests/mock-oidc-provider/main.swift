// mock-oidc-provider: the test OpenID provider as a process, for integration tests and
// benchmarks of the daemon. Not shipped.
//
//   mock-oidc-provider [--port N] [--config JSON] [--config-file PATH] [--no-stdin]
//
// Prints "listening http://127.0.0.1:PORT" on stdout once it accepts connections (the issuer; in
// Shopify mode `…/authentication/ID`, after a "shop-domain http://127.0.0.1:PORT2" line). Knobs are
// MockProviderConfiguration members (JSON), changeable later with POST /_mock/config; counters
// at GET /_mock/stats; POST /_mock/rotate-key rotates the signing key (`?same_kid=true`: the new
// key keeps the old `kid`). Exits on SIGTERM, and on end of stdin (so it never outlives the test that spawned it) unless --no-stdin.
import Foundation
import MockProvider

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("mock-oidc-provider: \(message)\n".utf8))
    exit(64)
}

var port = 0
var configuration = MockProviderConfiguration()
var watchStdin = true
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--port":
        guard let value = arguments.popFirst().flatMap(Int.init), (0...65535).contains(value) else {
            fail("--port needs 0…65535")
        }
        port = value
    case "--config", "--config-file":
        guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
        let json = argument == "--config" ? Data(value.utf8) : FileManager.default.contents(atPath: value)
        guard let json else { fail("cannot read \(value)") }
        do {
            configuration = try MockProvider.merging(Array(json), into: configuration)
        } catch {
            fail("bad configuration: \(error)")
        }
    case "--no-stdin":
        watchStdin = false
    default:
        fail(
            "unknown argument \(argument); usage: mock-oidc-provider [--port N] [--config JSON] [--config-file PATH] [--no-stdin]"
        )
    }
}

let provider: MockProvider
do {
    provider = try MockProvider(configuration: configuration, port: port)
} catch {
    fail("cannot start: \(error)")
}
// Shopify mode: the shop's domain first, so a reader of "listening" finds both lines.
if let shopDomain = provider.shopDomain { FileHandle.standardOutput.write(Data("shop-domain \(shopDomain)\n".utf8)) }
FileHandle.standardOutput.write(Data("listening \(provider.issuer)\n".utf8))
if watchStdin {
    while readLine() != nil {}
    exit(0)
}
while true { sleep(3600) }
