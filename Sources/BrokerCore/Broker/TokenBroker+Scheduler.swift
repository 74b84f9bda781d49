// Timers: one scheduler task sleeps until the earliest wake-up of any account.
extension TokenBroker {
    /// (Re)arms `key`'s single wake-up for the wall-clock time `at`.
    func arm(_ key: AccountKey, at: Double) {
        guard !isShutDown else { return }
        wakeUps[key] = at
        reschedule()
    }

    /// Makes the scheduler sleep until the earliest wake-up (unless it already wakes no later).
    private func reschedule() {
        guard !isShutDown, let next = wakeUps.values.min() else { return }
        if let scheduler, scheduler.deadline <= next { return }
        scheduler?.task.cancel()
        let task = Task {
            do { try await self.sleep(until: next) } catch { return }
            self.schedulerFired(deadline: next)
        }
        scheduler = (next, task)
    }

    /// Fires every wake-up that is due, then sleeps until the next one.
    private func schedulerFired(deadline: Double) {
        guard scheduler?.deadline == deadline else { return }  // superseded by an earlier arming
        scheduler = nil
        let time = now()
        for (key, at) in wakeUps where at <= time {
            wakeUps[key] = nil
            event(key, at: time) { machine, now in machine.timerFired(now: now) }
        }
        reschedule()
    }
}
