/// The browser `authctl login` started, watched from its wait loop instead of fired and forgotten:
/// a browser that exits non-zero (xdg-open 3 or 4 under WSL without wslu, 127 for a command not
/// found) is reported once, with what the user can do instead. A browser that exits 0 or keeps
/// running is fine (many hand the URL to a running instance and exit at once). Each check reaps
/// an exited child, so none is left a zombie while the login waits; one still running when
/// authctl exits is the user's browser and is left alone.
struct BrowserLaunch {
    private let url: String
    private var waiting: [BrowserChoice.Candidate]
    private var running: (candidate: BrowserChoice.Candidate, child: DetachedChild)?
    /// How the last candidate failed, kept until every candidate has.
    private var lastFailure: String?

    /// Whether a browser it started is still running (unreaped).
    var isWatching: Bool { running != nil }

    /// Starts the first candidate that can be started; the rest wait for it to fail.
    init(_ choice: BrowserChoice, url: String) {
        self.url = url
        waiting = choice.candidates
        startNext()
    }

    /// Nil while a browser runs or after one succeeded; once every candidate has failed, the
    /// reason (the command and its exit status, never the URL), returned only once.
    mutating func failure() -> String? {
        if let (candidate, child) = running, let status = child.exitStatus() {
            running = nil
            if status != 0 {
                lastFailure = "\(candidate) exited with status \(status)" + Self.meaning(of: status, from: candidate)
                startNext()
            } else {
                waiting = []
                lastFailure = nil
            }
        }
        guard running == nil, waiting.isEmpty, let failure = lastFailure else { return nil }
        lastFailure = nil
        return failure
    }

    private mutating func startNext() {
        while !waiting.isEmpty {
            let candidate = waiting.removeFirst()
            if let child = DetachedChild.spawn(candidate.argv(url: url), ownProcessGroup: true) {
                running = (candidate, child)
                return
            }
            lastFailure = "\(candidate) could not be started"
        }
    }

    /// The shell's and xdg-open's documented codes, so "status 127" needs no lookup.
    private static func meaning(of status: Int32, from candidate: BrowserChoice.Candidate) -> String {
        switch (status, candidate) {
        case (127, _): " (command not found)"
        case (126, _): " (not executable)"
        case (3, .xdgOpen): " (no tool found to open the URL)"
        case (4, .xdgOpen): " (the tool it ran failed)"
        case (129..., _): " (killed by signal \(status - 128))"
        default: ""
        }
    }
}
