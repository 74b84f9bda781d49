// swift-tools-version:6.3
// authbroker: a local OAuth 2.0 / OpenID Connect token broker for Linux.
// Swift 6.3 or later: the daemon's executor (Sources/BrokerDaemon/DaemonExecutor.swift) is built on
// the toolchain's `@_spi(ExperimentalCustomExecutors)` executor factory, new in 6.3 (tested: 6.3.1).
// No package dependencies, ever: only the toolchain and the system libraries
// libsqlite3 and OpenSSL 3 through the system-library targets below.
import Foundation  // the manifest only: locating the toolchain's resource directory and this package
import PackageDescription

// For the modules linked into the static authctl, whose start-up is most of `authctl token`'s
// time (docs/BENCHMARKS.md, "authctl start-up"): reference concrete generic types' metadata
// through direct accessors instead of mangled names that the runtime demangles on first use (and
// checks generic requirements for by scanning every protocol conformance in the binary).
let startUpSettings: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors", "-Xfrontend", "-function-sections"])
]

// authctl's front is Embedded Swift (Sources/authctl/Front.swift). `--static-swift-stdlib` points
// every compile at the toolchain's static resource directory, which has no Embedded standard
// library: the front is given the regular one, found next to the `swiftc` on PATH.
let toolchainResourceDirectory: [String] = {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        let swiftc = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc").resolvingSymlinksInPath()
        let resources = swiftc.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib/swift")
        if FileManager.default.fileExists(atPath: resources.appendingPathComponent("embedded").path) {
            return ["-Xfrontend", "-resource-dir", "-Xfrontend", resources.path]
        }
    }
    return []
}()
// The daemon's link (docs/BENCHMARKS-archive.md, "Daemon idle: the link"): lld, because gold cannot pack relative
// relocations — the PIE daemon has ~41,000 of them, 980 KB of `.rela.dyn` that ld.so reads at
// every start (RSS) and that RELR (glibc ≥ 2.36) packs into 8 KB; and no `-export-dynamic`
// (the static stdlib's link file adds it), which put ~4,500 of our symbols in the dynamic
// symbol table that every symbol lookup of the shared libraries hashes against, and kept each of
// them alive through --gc-sections. Nothing looks our symbols up at run time (debuggers and
// backtracers read the file's symbol table, which stays). Together 1.0 MB less RSS at idle. And libstdc++ linked
// statically (Sources/authbrokerd/StaticLibstdcxx says how): 1 MB less.
//
// And the functions the daemon runs (start-up, serving tokens and proofs, a refresh) laid out
// together at the start of its text (`authbrokerd.order`, made by bench/order-file.sh from
// callgrind): the kernel maps file pages 64 KB around each one touched, so code spread over
// 11 MB of text kept 1.8 MB more of it resident (docs/BENCHMARKS-archive.md,
// "Daemon idle: the code laid out together").
// The daemon's modules put each function in a section of its own so the linker can move it;
// the static stdlib's C++ runtime and Foundation already do (its Swift half is one section).
// A name the file has and the binary lacks is skipped: a stale file costs memory, not a build
// (DaemonLinkTests.theOrderFileIsNotStale says when it is stale).
let authbrokerdDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Sources/authbrokerd"
let daemonLinkerSettings: [LinkerSetting] = [
    .unsafeFlags([
        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
        "-L" + authbrokerdDirectory + "/StaticLibstdcxx",
        "-Xlinker", "--symbol-ordering-file=" + authbrokerdDirectory + "/authbrokerd.order",
        "-Xlinker", "--no-warn-symbol-ordering",
    ])
]
let functionSections: SwiftSetting = .unsafeFlags(["-Xfrontend", "-function-sections"])
let embeddedSettings: [SwiftSetting] = [
    .enableExperimentalFeature("Embedded"), .enableExperimentalFeature("Extern"),
    .unsafeFlags(["-wmo", "-Osize"] + toolchainResourceDirectory),
]

let package = Package(
    name: "authbroker",
    products: [
        .executable(name: "authbrokerd", targets: ["authbrokerd"]),
        .executable(name: "authctl", targets: ["authctl"]),
        .executable(name: "authctl-full", targets: ["authctl-full"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        // glibc's malloc controls (mallopt), for the daemon only; part of libc, nothing to link.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .systemLibrary(name: "CGNU", path: "Sources/CGNU"),

        // The wire grammars, below every other module: the strict HTTP/1.1 codec, form encoding,
        // Base64, WireJSON and the JSON nesting gate, RFC 3339, the one URL parser with its `Host`
        // and loopback rule, the RFC 9110 token and RFC 9449 nonce rules, HTML escaping. Pure
        // Swift, no dependencies, no C, no Foundation: the static CLI, crypto and the domain share it.
        .target(name: "WireFormats", swiftSettings: startUpSettings),
        // The one seam for raw system calls: EINTR retries and errno text. Glibc only, so the
        // static CLI and every layer above can use it.
        .target(name: "SystemCalls", dependencies: ["CGNU"], swiftSettings: startUpSettings),
        // Wire types shared by daemon and CLI. No C, no Foundation networking.
        .target(
            name: "BrokerProtocol", dependencies: ["WireFormats", "SystemCalls"], swiftSettings: startUpSettings),
        // The only importer of COpenSSL for cryptography.
        .target(name: "BrokerCrypto", dependencies: ["COpenSSL", "WireFormats"], swiftSettings: [functionSections]),
        // The only importer of CSQLite: connection, migrations, the encrypted vault. Stores the
        // account model of BrokerProtocol as a versioned document.
        .target(
            name: "BrokerStore", dependencies: ["CSQLite", "BrokerCrypto", "BrokerProtocol", "SystemCalls", "WireFormats"],
            swiftSettings: [functionSections]),
        // Loopback listener, Unix-socket server, HTTPS client (libssl), all on WireFormats' codec.
        .target(name: "BrokerHTTP", dependencies: ["WireFormats", "COpenSSL", "SystemCalls"], swiftSettings: [functionSections]),
        // The domain: OIDC engine, accounts, socket API routes. Touches no files, signals or
        // processes: what it learns of other processes is injected (BrokerProcesses).
        .target(
            name: "BrokerCore",
            dependencies: ["BrokerProtocol", "BrokerCrypto", "BrokerStore", "BrokerHTTP", "WireFormats"],
            swiftSettings: [functionSections]),
        // The daemon's reads of other processes (/proc: a peer's identity, the file it runs, its
        // namespaces, its ancestors) and the notify hook's spawn, for BrokerCore's injection points.
        // A module of its own so BrokerCore's tests can use the real ones without the daemon.
        .target(
            name: "BrokerProcesses", dependencies: ["BrokerCore", "BrokerHTTP", "BrokerProtocol", "SystemCalls"],
            swiftSettings: [functionSections]),
        // Wiring only: services, signals, sd_notify, socket activation, paths.
        .target(
            name: "BrokerDaemon",
            dependencies: [
                "BrokerCore", "BrokerHTTP", "BrokerProcesses", "BrokerProtocol", "BrokerStore", "CMalloc", "SystemCalls",
                "WireFormats",
            ],
            swiftSettings: [functionSections]),

        .executableTarget(
            name: "authbrokerd", dependencies: ["BrokerDaemon"], exclude: ["StaticLibstdcxx", "authbrokerd.order"],
            swiftSettings: [functionSections], linkerSettings: daemonLinkerSettings),
        // authctl's commands, argument handling and git-credential matching, unit-tested without the
        // binary (AuthctlCommandsTests). Pure Swift + Glibc: it is linked into the static authctl.
        .target(name: "AuthctlCommands", dependencies: ["BrokerProtocol", "SystemCalls", "WireFormats"], swiftSettings: startUpSettings),
        // The whole command line. Fully static (no dynamic loader, no Foundation, no OpenSSL/SQLite):
        // start-up is most of a short command's time (docs/BENCHMARKS.md, "authctl start-up").
        // ld.gold cannot make a static PIE; authctl only talks to the uid-checked daemon socket.
        .executableTarget(
            name: "authctl-full", dependencies: ["AuthctlCommands"], swiftSettings: startUpSettings,
            linkerSettings: [.unsafeFlags(["-static-executable"])]),
        // authctl: an Embedded Swift front that answers `authctl token NAME` itself and runs
        // authctl-full for everything else (Sources/authctl/Front.swift). Static, libc only.
        .executableTarget(name: "authctl", swiftSettings: embeddedSettings, linkerSettings: [.unsafeFlags(["-Xclang-linker", "-static"])]),

        // Test support: temporary directories, child processes, the mock OpenID provider.
        .target(
            name: "TestSupport",
            dependencies: ["BrokerCrypto", "BrokerHTTP", "COpenSSL", "SystemCalls", "WireFormats"],
            path: "Tests/TestSupport"),

        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"]),
        .testTarget(name: "BrokerProtocolTests", dependencies: ["BrokerProtocol", "TestSupport", "WireFormats"]),
        .testTarget(name: "BrokerCryptoTests", dependencies: ["BrokerCrypto", "TestSupport", "WireFormats"]),
        .testTarget(
            name: "BrokerStoreTests",
            dependencies: ["BrokerStore", "BrokerCrypto", "BrokerProtocol", "CSQLite", "TestSupport", "WireFormats", "vault-torture"]),
        .testTarget(name: "WireFormatsTests", dependencies: ["WireFormats"]),
        .testTarget(
            name: "AuthctlCommandsTests", dependencies: ["AuthctlCommands", "BrokerProtocol", "SystemCalls", "TestSupport", "WireFormats"]),
        .testTarget(name: "BrokerHTTPTests", dependencies: ["BrokerHTTP", "SystemCalls", "TestSupport", "WireFormats"]),
        .testTarget(
            name: "BrokerCoreTests",
            dependencies: [
                "BrokerCore", "BrokerCrypto", "BrokerHTTP", "BrokerProcesses", "BrokerProtocol", "BrokerStore", "TestSupport",
                "MockProvider", "WireFormats", "mock-oidc-provider",
            ]),
        .testTarget(name: "BrokerProcessesTests", dependencies: ["BrokerCore", "BrokerProcesses", "TestSupport"]),

        // The mock OpenID provider (test support, never shipped): in-process library and a
        // small executable that integration tests and benchmarks spawn.
        .target(
            name: "MockProvider", dependencies: ["BrokerHTTP", "BrokerCrypto", "TestSupport", "WireFormats"], path: "Tests/MockProvider"),
        .executableTarget(name: "mock-oidc-provider", dependencies: ["MockProvider"], path: "Tests/mock-oidc-provider"),
        // Integrations (issue 6): the real authctl (and daemon, mock provider, git) end to end, and
        // docs whose examples must keep matching what authctl accepts. Not a dependency on the
        // authctl target: its -static-executable flag would be applied to the test bundle; `swift
        // build`/`swift test` build every product anyway.
        .testTarget(
            name: "IntegrationTests", dependencies: ["BrokerHTTP", "TestSupport", "mock-oidc-provider"],
            exclude: ["Fixtures"]),
        // Spawns the real authbrokerd (and authctl: not a dependency, for the same reason as above).
        .testTarget(
            name: "BrokerDaemonTests",
            dependencies: [
                "BrokerCrypto", "BrokerDaemon", "BrokerCore", "BrokerHTTP", "BrokerProtocol", "BrokerStore", "MockProvider", "SystemCalls",
                "TestSupport", "WireFormats", "authbrokerd",
            ]),

        // Benchmark (not a test): HTTP round trips over the Unix socket vs a trivial echo server.
        .executableTarget(name: "socket-bench", dependencies: ["BrokerHTTP"], path: "bench/socket-bench"),

        // A child process for the crash-safety test: writes tokens in a loop until killed.
        .executableTarget(
            name: "vault-torture", dependencies: ["BrokerStore", "BrokerCrypto", "BrokerProtocol"], path: "Tests/vault-torture"),
    ],
    swiftLanguageModes: [.v6]
)
