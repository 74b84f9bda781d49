// The floor for bench/daemon-idle.sh: a static Swift program that starts one task and sleeps.
//   swiftc -O -static-stdlib bench/lib/sleeper.swift -o /tmp/sleeper && /tmp/sleeper &
//   python3 bench/lib/footprint.py wakeups $! 20; grep VmRSS /proc/$!/status
// It is woken once a second (libdispatch's workqueue monitor), like authbrokerd at idle.
import Dispatch

let done = DispatchSemaphore(value: 0)
Task {
    try? await Task.sleep(for: .seconds(3600))
    done.signal()
}
done.wait()
