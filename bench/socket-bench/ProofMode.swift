import Foundation

/// `--dpop SOCKET ACCOUNT URL [requests]`: the latency of a signed DPoP proof against the plain
/// token route, same client, same connection kind, rounds interleaved so machine noise hits both.
/// With a sixth argument `proofs-only`, just REQUESTS proofs and no table: bench/dpop-proof.sh
/// reads the daemon's CPU time around that run.
func runProofMode() {
    let arguments = CommandLine.arguments
    let (socketPath, account, url) = (arguments[2], arguments[3], arguments[4])
    let total = arguments.count > 5 ? Int(arguments[5]) ?? 5000 : 5000
    let body = #"{"method":"GET","url":"\#(url)"}"#
    let proof = Array(
        ("POST /v1/accounts/\(account)/dpop-proof HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    let token = Array("GET /v1/accounts/\(account)/token HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\n\r\n".utf8)
    if arguments.count > 6, arguments[6] == "proofs-only" {
        let served = runClient(path: socketPath, until: .now + .seconds(120), request: proof, limit: total)
        print("proofs served: \(served.count)")
        return
    }
    let round = 500
    var proofs: [Int64] = []
    var tokens: [Int64] = []
    _ = runClient(path: socketPath, until: .now + .seconds(60), request: proof, limit: 200)  // warm-up
    while proofs.count < total {
        let count = min(round, total - proofs.count)
        tokens += runClient(path: socketPath, until: .now + .seconds(60), request: token, limit: count)
        proofs += runClient(path: socketPath, until: .now + .seconds(60), request: proof, limit: count)
    }
    print("| route (one keep-alive client, \(total) requests each) | p50 µs | p99 µs |")
    print("|---|---|---|")
    for (name, latencies) in [("`POST …/dpop-proof` (ES256 proof + token)", proofs), ("`GET …/token` (text/plain)", tokens)] {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else {
            print("| \(name) | failed | failed |")
            continue
        }
        let p50 = String(format: "%.1f", Double(sorted[sorted.count / 2]) / 1000)
        let p99 = String(format: "%.1f", Double(sorted[sorted.count * 99 / 100]) / 1000)
        print("| \(name) | \(p50) | \(p99) |")
    }
}
