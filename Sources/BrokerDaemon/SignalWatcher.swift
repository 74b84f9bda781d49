import Dispatch

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// Turns signals into an `AsyncStream`, through DispatchSource (the signal's default action is
/// replaced by SIG_IGN first, as DispatchSource requires). Create it from nonisolated code:
/// sources made in MainActor code trap at run time (SWIFT-LINUX-NOTES).
final class SignalWatcher: Sendable {
    let signals: AsyncStream<Int32>
    // Sources must stay alive to keep delivering; never mutated after init.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    init(_ numbers: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let queue = DispatchQueue(label: "authbrokerd.signals")
        signals = stream
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
