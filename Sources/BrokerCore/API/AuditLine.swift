import BrokerHTTP
import BrokerProtocol

/// The text of one audit line (`APIRouter.audit`):
/// `audit: KIND account=NAME [method=M origin=O] [scope=S] [resource=R] [audience=A] [via=PATH] pid=P uid=U exe=PATH [exe_id=MAJ:MIN:INO] comm=NAME start=TICKS socket=S owner=U`,
/// each value quoted like any log metadata (`Logger.quoted`). `exe_id` (`FileIdentity`) is there
/// when the caller policy read it: for an account with one.
///
/// Built here in one String and logged as the message, rather than as a chain of `Logger.with`
/// copies plus eight metadata pairs: the line is written synchronously for every token served,
/// and those copies and the growing string were most of its cost (docs/BENCHMARKS-archive.md,
/// "Token route: the audit line built as bytes"). The logger's own base metadata, if any, follows the line.
enum AuditLine {
    static func format(
        _ kind: String, account: AccountKey, request: KeyValuePairs<String, String>, narrowing: TokenNarrowing = .none,
        identity: ProcessIdentity, peer: PeerCredentials, socket: String
    ) -> String {
        // Bytes first, one String at the end: a String append cost ≈ 500 instructions, and the line
        // has thirty pieces — a third of a served token's user-space work (callgrind, token route;
        // docs/BENCHMARKS-archive.md, "Token route: the audit line built as bytes").
        var line: [UInt8] = []
        line.reserveCapacity(192 + identity.executable.utf8.count + account.name.utf8.count)
        append(&line, "audit: ")
        append(&line, kind)
        pair(&line, "account", account.name)
        for (key, value) in request { pair(&line, key, value) }
        // A narrowed token names what was issued (space-separated lists, as the query has them).
        if !narrowing.scopes.isEmpty { pair(&line, "scope", narrowing.scopes.joined(separator: " ")) }
        if !narrowing.resources.isEmpty { pair(&line, "resource", narrowing.resources.joined(separator: " ")) }
        if let audience = narrowing.audience { pair(&line, "audience", audience) }
        if let via = identity.via { pair(&line, "via", via) }
        pair(&line, "pid", String(peer.pid))
        pair(&line, "uid", String(peer.uid))
        pair(&line, "exe", identity.executable)
        if let file = identity.executableID { pair(&line, "exe_id", file.description) }
        pair(&line, "comm", identity.command)
        pair(&line, "start", identity.startTime)
        pair(&line, "socket", socket)
        pair(&line, "owner", String(account.owner))
        return String(decoding: line, as: UTF8.self)
    }

    private static func pair(_ line: inout [UInt8], _ key: String, _ value: String) {
        line.append(UInt8(ascii: " "))
        append(&line, key)
        line.append(UInt8(ascii: "="))
        append(&line, Logger.quoted(value))
    }

    private static func append(_ line: inout [UInt8], _ text: String) {
        var text = text
        text.withUTF8 { line.append(contentsOf: $0) }
    }
}
