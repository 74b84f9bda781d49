import BrokerHTTP

/// The text of one audit line (`APIRouter.audit`):
/// `audit: KIND account=NAME [method=M origin=O] [via=PATH] pid=P uid=U exe=PATH comm=NAME start=TICKS socket=S owner=U`,
/// each value quoted like any log metadata (`Logger.quoted`).
///
/// Built here in one String and logged as the message, rather than as a chain of `Logger.with`
/// copies plus eight metadata pairs: the line is written synchronously for every token served,
/// and those copies and the growing string were most of its cost (docs/BENCHMARKS.md, "Token
/// route"). The logger's own base metadata, if any, follows the line.
enum AuditLine {
    static func format(
        _ kind: String, account: AccountKey, request: KeyValuePairs<String, String>, identity: ProcessIdentity,
        peer: PeerCredentials, socket: String
    ) -> String {
        var line = "audit: "
        // Room for the fixed keys and typical values: one allocation for the whole line.
        line.reserveCapacity(160 + identity.executable.utf8.count + account.name.utf8.count)
        line += kind
        append(&line, "account", account.name)
        for (key, value) in request { append(&line, key, value) }
        if let via = identity.via { append(&line, "via", via) }
        append(&line, "pid", String(peer.pid))
        append(&line, "uid", String(peer.uid))
        append(&line, "exe", identity.executable)
        append(&line, "comm", identity.command)
        append(&line, "start", identity.startTime)
        append(&line, "socket", socket)
        append(&line, "owner", String(account.owner))
        return line
    }

    private static func append(_ line: inout String, _ key: String, _ value: String) {
        line += " "
        line += key
        line += "="
        line += Logger.quoted(value)
    }
}
