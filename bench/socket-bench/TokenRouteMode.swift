import Foundation
import Glibc

/// `--token-route SOCKET ACCOUNT [seconds-per-run=2]`: the daemon's token route against the echo
/// floor, in one run (bench/token-route.sh): one client with keep-alive, one client with a new
/// connection per request (connect, one request with `Connection: close`, read to EOF — what
/// `authctl token` does), and 16 keep-alive clients for the throughput ratio. Each measurement
/// runs 3 times in rotation with the echo server's; the best run of each is kept.
func runTokenRouteMode() {
    let arguments = CommandLine.arguments
    let (socketPath, account) = (arguments[2], arguments[3])
    let seconds = arguments.count > 4 ? Double(arguments[4]) ?? 2 : 2
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("token-route-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let echoPath = "\(directory)/echo.sock"
    _ = startEchoServer(path: echoPath)
    let tokenRequest = "GET /v1/accounts/\(account)/token HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n"
    let echoRequest = "GET /v1/ping HTTP/1.1\r\nHost: localhost\r\n"
    let keepAlive = { (head: String) in Array((head + "\r\n").utf8) }
    let closing = { (head: String) in Array((head + "Connection: close\r\n\r\n").utf8) }

    print(
        "token route against the echo floor, best of 3 runs of \(seconds) s, \(ProcessInfo.processInfo.activeProcessorCount) cores"
    )
    print("server                         clients   req/s      p50 µs    p99 µs")
    let cases: [(name: String, path: String, request: [UInt8], newConnection: Bool, clients: Int)] = [
        ("echo keep-alive", echoPath, keepAlive(echoRequest), false, 1),
        ("token keep-alive", socketPath, keepAlive(tokenRequest), false, 1),
        ("echo new connection", echoPath, closing(echoRequest), true, 1),
        ("token new connection", socketPath, closing(tokenRequest), true, 1),
        ("echo keep-alive", echoPath, keepAlive(echoRequest), false, 16),
        ("token keep-alive", socketPath, keepAlive(tokenRequest), false, 16),
    ]
    var best = [Result?](repeating: nil, count: cases.count)
    for _ in 0..<3 {
        for (index, item) in cases.enumerated() {
            let result = measure(
                path: item.path, clients: item.clients, seconds: seconds, request: item.request, newConnection: item.newConnection
            )
            if result.requestsPerSecond > best[index]?.requestsPerSecond ?? -1 { best[index] = result }
        }
    }
    for (index, item) in cases.enumerated() { row(item.name, item.clients, best[index]!) }
    let ratio = 100 * best[5]!.requestsPerSecond / max(best[4]!.requestsPerSecond, 1)
    print("16-client token throughput vs echo: \(String(format: "%.0f", ratio)) %")
}

/// Latencies (ns) of requests each on a new connection (connect, send, read to EOF, close).
func runNewConnectionClient(path: String, until deadline: ContinuousClock.Instant, request: [UInt8]) -> [Int64] {
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    var latencies: [Int64] = []
    latencies.reserveCapacity(1 << 18)
    let clock = ContinuousClock()
    while clock.now < deadline {
        let start = clock.now
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = unixAddress(path)
        defer { close(fd) }
        guard withSockaddr(&address, { connect(fd, $0, $1) }) == 0,
            send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count
        else { break }
        var received = 0
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += count
        }
        guard received > 0 else { break }
        let elapsed = clock.now - start
        latencies.append(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
    return latencies
}
