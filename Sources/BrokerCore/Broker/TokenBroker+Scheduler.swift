// Timers: one scheduler task sleeps until the earliest wake-up of any account (`WakeUpSchedule`).
extension TokenBroker {
    /// (Re)arms `key`'s single wake-up for the wall-clock time `at`.
    func arm(_ key: AccountKey, at: Double) {
        guard !isShutDown else { return }
        wakeUps.arm(key, at: at)
        reschedule()
    }

    /// Makes the scheduler sleep until the earliest wake-up (unless it already wakes no later).
    private func reschedule() {
        guard !isShutDown, let next = wakeUps.reschedule() else { return }
        scheduler?.cancel()
        scheduler = Task {
            do { try await self.sleep(until: next) } catch { return }
            self.schedulerFired(deadline: next)
        }
    }

    /// Fires every wake-up that is due, then sleeps until the next one.
    private func schedulerFired(deadline: Double) {
        let time = now()
        guard let due = wakeUps.fire(deadline: deadline, now: time) else { return }  // superseded by an earlier arming
        scheduler = nil
        for key in due {
            event(key, at: time) { machine, now in machine.timerFired(now: now) }
        }
        reschedule()
    }
}
